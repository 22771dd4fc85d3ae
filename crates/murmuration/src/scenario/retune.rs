//! Changing a running world's parameters through scenario paths
//! (`species.fish.alignment_weight`, `world.dt`, `relations.shark.fish`): the
//! changed scenario is parsed and validated as a file with `--set` would be, and
//! what may change while boids fly is copied into the world.

use super::{Override, Scenario};
use crate::error::ScenarioError;
use crate::params::SpeciesId;
use crate::vector::Vector;
use crate::world::World;

impl Scenario {
    /// This scenario with one more override, validated as the command line's
    /// `--set` is (the same errors, naming the file, the setting and the value).
    pub fn with_override(&self, o: Override) -> Result<Scenario, ScenarioError> {
        let mut overrides = self.overrides.clone();
        overrides.push(o);
        Scenario::parse_with(&self.text, &self.origin, &overrides)
    }

    /// Copies this scenario's world settings, species parameters and relations into
    /// `world`, a running world built from `before` (this file with other
    /// overrides), keeping its boids. What the world built from the file and now
    /// owns (counts and spawn regions, obstacles, attractors, pulses, paths, zones)
    /// cannot change this way: that is an error naming the first setting changed,
    /// and the world is left as it was.
    pub fn retune<V: Vector>(
        &self,
        before: &Scenario,
        world: &mut World<V>,
    ) -> Result<(), ScenarioError> {
        let new = self.plan::<V>()?;
        let old = before.plan::<V>()?;
        let refuse = |what: &str| {
            let field = self
                .overrides
                .last()
                .map(|o| o.path.clone())
                .unwrap_or_default();
            self.error_at(
                &field,
                format!(
                    "{field} changes {what}, which a running world keeps from when it was built; give it when the world is built instead (an override of the scenario)"
                ),
            )
        };
        if new.spawns.len() != old.spawns.len() || new.spawns.len() != world.species().len() {
            return Err(refuse("the species"));
        }
        // The spawn speed follows max_speed unless given, so it is compared
        // only when the setting names it.
        let names_speed = self
            .overrides
            .last()
            .is_some_and(|o| o.path.starts_with("species.") && o.path.ends_with(".speed"));
        for (a, b) in new.spawns.iter().zip(&old.spawns) {
            if a.name != b.name
                || a.count != b.count
                || a.region != b.region
                || (names_speed && a.speed != b.speed)
                || a.heading != b.heading
            {
                return Err(refuse(&format!("how species.{} is spawned", a.name)));
            }
        }
        let (n, o) = (&new.world, &old.world);
        let entities = [
            ("the obstacles", n.obstacles() != o.obstacles()),
            ("the attractors", n.attractors() != o.attractors()),
            ("the pulses", n.pulses() != o.pulses()),
            ("the paths", n.paths() != o.paths()),
            ("the zones", n.zones() != o.zones()),
        ];
        if let Some((what, _)) = entities.iter().find(|e| e.1) {
            return Err(refuse(what));
        }
        let names: Vec<String> = new.spawns.iter().map(|s| s.name.clone()).collect();
        // `plan` validated all of it, in the world's own checks too, so nothing
        // below fails part way.
        world
            .set_config(*n.config())
            .map_err(|e| self.world_error(e, "world", &names))?;
        for (i, p) in n.species().iter().enumerate() {
            world
                .set_species_params(SpeciesId::new(i), *p)
                .map_err(|e| self.world_error(e, &format!("species.{}", names[i]), &names))?;
        }
        world
            .set_relations(n.relations().clone())
            .map_err(|e| self.world_error(e, "relations", &names))?;
        Ok(())
    }
}
