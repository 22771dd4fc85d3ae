//! Paths (capture radius, flow along, fade) and zones (counts, events).

use murmuration::{Spawn, SpeciesId};

use glam::Vec2;
use murmuration::{
    Boundary, Event, Obstacle, Path, SpeciesParams, World, World2, WorldConfig, Zone,
};

fn world(n_far: usize) -> World2 {
    let mut cfg = WorldConfig::new(Vec2::splat(100.0), Boundary::Wrap);
    cfg.seed = 4;
    // A species that can turn within the capture radius (max force 4).
    let p = SpeciesParams {
        max_force: 4.0,
        ..SpeciesParams::default()
    };
    let mut w = World::new(cfg, vec![p]).unwrap();
    // One boid inside the capture radius, heading across the path.
    w.add_boid(SpeciesId::FIRST, Vec2::new(20.0, 50.5), Vec2::new(0.0, 2.0))
        .unwrap();
    // A group far from the path (y around 80).
    for k in 0..n_far {
        let at = Vec2::new(10.0 + (k % 10) as f32 * 1.2, 78.0 + (k / 10) as f32 * 1.2);
        w.add_boid(SpeciesId::FIRST, at, Vec2::new(1.0, 0.5))
            .unwrap();
    }
    w
}

#[test]
fn boids_inside_the_capture_radius_flow_along_and_others_do_not_notice() {
    let mut with = world(50);
    let mut without = world(50);
    with.add_path(Path::new(
        vec![Vec2::new(10.0, 50.0), Vec2::new(90.0, 50.0)],
        2.0,
        2.0,
    ))
    .unwrap();
    for _ in 0..120 {
        with.step();
        without.step();
    }
    let v = with.velocities()[0].normalize();
    eprintln!("captured boid's heading after 2 s: {v}");
    assert!(v.x > 0.9, "the captured boid does not follow the path: {v}");
    assert!(
        (with.positions()[0].y - 50.0).abs() < 2.0,
        "it left the path"
    );
    // The far group never came near the path: bit-identical with and without it.
    assert_eq!(&with.positions()[1..], &without.positions()[1..]);
    assert_eq!(&with.velocities()[1..], &without.velocities()[1..]);
}

#[test]
fn a_path_fades_over_its_lifetime_and_is_removed() {
    let mut w = world(0);
    let mut p = Path::new(vec![Vec2::new(10.0, 50.0), Vec2::new(90.0, 50.0)], 2.0, 2.0);
    p.lifetime = 0.5;
    w.add_path(p).unwrap();
    w.step_n(29);
    assert_eq!(w.paths().len(), 1);
    w.step_n(2);
    assert!(w.paths().is_empty());
}

#[test]
fn zone_counts_equal_a_brute_force_count_and_events_match_membership() {
    let mut cfg = WorldConfig::new(Vec2::splat(30.0), Boundary::Wrap);
    cfg.seed = 8;
    let mut w = World::new(
        cfg,
        vec![SpeciesParams::default(), SpeciesParams::default()],
    )
    .unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 400).speed(3.0))
        .unwrap();
    w.spawn(Spawn::new(SpeciesId::new(1), 400).speed(3.0))
        .unwrap();
    let plate = Obstacle::Box {
        center: Vec2::new(10.0, 10.0),
        half_extents: Vec2::new(4.0, 3.0),
    };
    let disc = Obstacle::Sphere {
        center: Vec2::new(20.0, 18.0),
        radius: 5.0,
    };
    w.add_zone(Zone {
        threshold: 20,
        ..Zone::new(plate.clone())
    })
    .unwrap();
    w.add_zone(Zone {
        species: Some(1),
        ..Zone::new(disc.clone())
    })
    .unwrap();
    let mut members: Vec<std::collections::BTreeSet<u32>> = vec![Default::default(); 2];
    let mut thresholds = 0;
    for _ in 0..300 {
        w.step();
        for e in w.events() {
            match *e {
                Event::ZoneEntered { zone, boid, .. } => assert!(members[zone].insert(boid)),
                Event::ZoneExited { zone, boid, .. } => assert!(members[zone].remove(&boid)),
                Event::ZoneThreshold {
                    zone,
                    count,
                    rising,
                    ..
                } => {
                    assert_eq!(zone, 0);
                    assert_eq!(rising, count >= 20);
                    thresholds += 1;
                }
                Event::Eaten { .. } => unreachable!(),
            }
        }
        for (z, (shape, species)) in [(plate.clone(), None), (disc.clone(), Some(1u16))]
            .into_iter()
            .enumerate()
        {
            let brute: Vec<u32> = w
                .ids()
                .iter()
                .zip(w.positions())
                .zip(w.boid_species())
                .filter(|((_, p), s)| {
                    species.is_none_or(|x| x == **s) && shape.surface(**p).distance <= 0.0
                })
                .map(|((id, _), _)| *id)
                .collect();
            assert_eq!(w.zones()[z].count(), brute.len());
            assert_eq!(w.zones()[z].inside, brute);
            assert_eq!(members[z].iter().copied().collect::<Vec<_>>(), brute);
        }
    }
    eprintln!("threshold crossings of zone 0 in 300 steps: {thresholds}");
    assert!(thresholds > 0);
}

#[test]
fn paths_and_zones_survive_snapshots_without_spurious_events() {
    let mut w = world(40);
    w.add_path(Path::new(
        vec![Vec2::new(10.0, 50.0), Vec2::new(90.0, 50.0)],
        2.0,
        2.0,
    ))
    .unwrap();
    w.add_zone(Zone::new(Obstacle::Sphere {
        center: Vec2::new(20.0, 80.0),
        radius: 6.0,
    }))
    .unwrap();
    w.step_n(60);
    let mut back = World2::from_snapshot_bytes(&w.to_snapshot_bytes()).unwrap();
    assert_eq!(back.zones(), w.zones());
    for _ in 0..60 {
        w.step();
        back.step();
        assert_eq!(w.events(), back.events());
    }
    assert_eq!(w.digest(), back.digest());
}

#[test]
fn a_path_for_one_species_is_ignored_by_the_others_and_an_unknown_species_is_refused() {
    let build = |path_species: Option<u16>| {
        let mut w = world(0);
        w.add_species(SpeciesParams::default()).unwrap();
        let mut p = Path::new(vec![Vec2::new(10.0, 50.0), Vec2::new(90.0, 50.0)], 2.0, 2.0);
        p.species = path_species;
        w.add_path(p).unwrap();
        w.step_n(120);
        w.velocities()[0].normalize()
    };
    let plain = {
        let mut w = world(0);
        w.add_species(SpeciesParams::default()).unwrap();
        w.step_n(120);
        w.velocities()[0].normalize()
    };
    assert!(build(Some(0)).x > 0.9, "its own species follows the path");
    assert_eq!(
        build(Some(1)),
        plain,
        "another species' path moved the boid"
    );
    let mut w = world(0);
    let mut p = Path::new(vec![Vec2::new(10.0, 50.0), Vec2::new(90.0, 50.0)], 2.0, 2.0);
    p.species = Some(3);
    let e = w.add_path(p).unwrap_err().to_string();
    assert!(e.contains("paths[0].species = 3"), "{e}");
}

#[test]
fn set_zone_keeps_who_is_inside_so_a_moved_zone_reports_only_its_edges() {
    // The far group (around (15, 81)) sits in a zone; moving the zone by a little
    // must not report the whole group leaving and re-entering.
    let mut w = world(40);
    let zone = |x: f32| {
        Zone::new(Obstacle::Sphere {
            center: Vec2::new(x, 81.0),
            radius: 30.0,
        })
    };
    w.add_zone(zone(15.0)).unwrap();
    w.step();
    let inside = w.zones()[0].count();
    assert!(inside >= 40, "{inside} inside");
    w.set_zone(0, zone(16.0)).unwrap();
    w.step();
    let crossings = w
        .events()
        .iter()
        .filter(|e| matches!(e, Event::ZoneEntered { .. } | Event::ZoneExited { .. }))
        .count();
    assert_eq!(crossings, 0, "{:?}", w.events());
    assert_eq!(w.zones()[0].count(), inside);
    // Replacing by add and remove, as before set_zone, reports every boid again.
    w.remove_zone(0).unwrap();
    w.add_zone(zone(16.0)).unwrap();
    w.step();
    assert!(w.events().len() >= inside);
    let e = w.set_zone(3, zone(1.0)).unwrap_err().to_string();
    assert!(e.contains('3'), "{e}");
}

#[test]
fn set_path_replaces_a_path_in_place_and_refuses_an_unknown_index() {
    let mut w = world(0);
    let line = |y: f32| Path::new(vec![Vec2::new(10.0, y), Vec2::new(90.0, y)], 2.0, 2.0);
    w.add_path(line(50.0)).unwrap();
    w.set_path(0, line(60.0)).unwrap();
    assert_eq!(w.paths(), &[line(60.0)]);
    assert!(w.set_path(1, line(60.0)).is_err());
    let mut bad = line(60.0);
    bad.weight = f32::NAN;
    let e = w.set_path(0, bad).unwrap_err().to_string();
    assert!(e.contains("paths[0].weight"), "{e}");
    assert_eq!(w.paths(), &[line(60.0)], "a refused path changed nothing");
}
