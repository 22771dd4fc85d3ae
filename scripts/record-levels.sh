#!/usr/bin/env bash
# Re-records every shipped level's winning solution and its two losing
# recordings (an idle player; the pointer held on the exit) after a deliberate
# change to the levels or the engine, with the scripted player of
# crates/murmuration-game/examples/headless.rs. Each solution's route is here,
# in one place; the comment lines at the top of each recording are kept.
#
#   bash scripts/record-levels.sh        # then: cargo test -p murmuration-game
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p murmuration-game --example headless
H=target/release/examples/headless
EMPTY=levels/scripts/empty.replay

# key, script, scripted player's arguments
solve() {
  local key=$1 script=$2; shift 2
  local level out=levels/solutions/$key.replay
  level=$(ls levels/*-"$key".toml)
  grep '^#' "$out" > /tmp/record-levels-header.txt || true
  $H "$level" "$script" "$@" --write /tmp/record-levels.replay | grep -E '^(outcome|saved):'
  cat /tmp/record-levels-header.txt /tmp/record-levels.replay > "$out"
}

solve first-light $EMPTY --bot "60,50;100,50;140,48;170,48;188,50"
solve night-hunters $EMPTY --bot "60,50;100,50;140,50;180,50;208,50" --lead 12
solve the-mechanism $EMPTY --bot "50,60;85,82;85,82;110,60;140,50;185,50"
solve two-hands levels/scripts/two-hands.replay --bot "100,62@2500;100,22@3800;150,60;188,60" --lead 14 --no-recall
solve the-narrows $EMPTY --bot "60,50;95,50;118,50@2700;150,50;188,50" --lead 22
solve the-lock $EMPTY --bot "92,80;117,50;150,50;185,50" --lead 20
solve lightless $EMPTY --bot "30,85;80,85;80,15;130,15;130,85;180,85;185,20" --lead 20
solve the-great-swarm $EMPTY --bot "120,90;190,90;260,90;335,90" --lead 30
solve the-deep $EMPTY --bot "40,80;80,84;95,84;125,60;160,50;185,50" --lead 20
solve the-last-light $EMPTY --bot "50,60;75,60;100,60@2400;160,92;193,60;230,60;245,60" --lead 20

# The losses: every level, idle and straight at the exit.
for level in levels/[0-9]*-*.toml; do
  key=$(basename "$level" .toml | cut -d- -f2-)
  exit=$(grep -E '^exit' "$level" | sed -E 's/.*center = \[([0-9.]+), ([0-9.]+)\].*/\1,\2/')
  for how in idle straight; do
    out=levels/losses/$key-$how.replay
    if [ "$how" = idle ]; then
      printf '# A losing recording of %s: an idle player who never moves the focus.\n' "$key" > /tmp/record-levels-header.txt
      args=()
    else
      printf '# A losing recording of %s: the naive straight line, the pointer held on the exit\n# from the start (scripts/record-levels.sh: --bot "%s" --lead 300 --no-recall).\n' "$key" "$exit" > /tmp/record-levels-header.txt
      args=(--bot "$exit" --lead 300 --no-recall)
    fi
    echo '# tests/integration/replays.rs replays it and asserts the loss and its sentence.' >> /tmp/record-levels-header.txt
    echo "$key $how:"
    $H "$level" $EMPTY "${args[@]}" --write /tmp/record-levels.replay | grep -E '^outcome:'
    cat /tmp/record-levels-header.txt /tmp/record-levels.replay > "$out"
  done
done
