//! Bad input gets a typed error naming the field and value, never a panic.

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::Vec2;
use murmuration::{
    Boundary, MAX_BOIDS, ParamError, Relations, SpeciesParams, World2, WorldConfig, WorldError,
};

fn cfg() -> WorldConfig<Vec2> {
    WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap)
}

#[test]
fn empty_species_list_is_rejected() {
    let e = World2::new(cfg(), vec![]).unwrap_err();
    assert!(e.to_string().contains("species"), "{e}");
}

#[test]
fn nan_negative_and_inconsistent_parameters_name_field_and_value() {
    let cases: [(SpeciesParams, &str); 6] = [
        (
            SpeciesParams {
                max_speed: f32::NAN,
                ..Default::default()
            },
            "species[0].max_speed = NaN",
        ),
        (
            SpeciesParams {
                separation_radius: -0.5,
                ..Default::default()
            },
            "species[0].separation_radius = -0.5",
        ),
        (
            SpeciesParams {
                separation_radius: 2.0,
                ..Default::default()
            },
            "must not exceed species[0].perception_radius = 1.5",
        ),
        (
            SpeciesParams {
                min_speed: 5.0,
                ..Default::default()
            },
            "species[0].min_speed = 5 must not exceed species[0].max_speed = 3",
        ),
        (
            SpeciesParams {
                fov_degrees: 400.0,
                ..Default::default()
            },
            "species[0].fov_degrees = 400",
        ),
        (
            SpeciesParams {
                smoothing: 1.0,
                ..Default::default()
            },
            "species[0].smoothing = 1",
        ),
    ];
    for (p, want) in cases {
        let e = World2::new(cfg(), vec![p]).unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} should contain {want:?}");
    }
}

#[test]
fn changing_parameters_is_validated_and_leaves_the_old_ones_on_error() {
    let mut w = World2::new(cfg(), vec![SpeciesParams::default()]).unwrap();
    let bad = SpeciesParams {
        max_force: f32::INFINITY,
        ..Default::default()
    };
    assert!(matches!(
        w.set_species_params(SpeciesId::FIRST, bad),
        Err(WorldError::Param(ParamError::NotFinite { .. }))
    ));
    assert_eq!(w.species()[0], SpeciesParams::default());
    assert!(matches!(
        w.set_species_params(SpeciesId::new(3), SpeciesParams::default()),
        Err(WorldError::UnknownSpecies { index: 3, count: 1 })
    ));
    let mut c = cfg();
    c.dt = f32::NAN;
    assert!(
        w.set_config(c)
            .unwrap_err()
            .to_string()
            .contains("world.dt")
    );
    let e = w
        .set_relations(Relations::default_for(2))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "relations has 4 entries but 1 are needed (1 species)");
}

#[test]
fn absurd_counts_and_non_finite_boids_are_rejected() {
    let mut w = World2::new(cfg(), vec![SpeciesParams::default()]).unwrap();
    let e = w
        .spawn(Spawn::new(SpeciesId::FIRST, MAX_BOIDS + 1).speed(1.0))
        .unwrap_err();
    assert!(matches!(e, WorldError::TooManyBoids { .. }), "{e}");
    assert!(e.to_string().contains("268435457"), "{e}");
    let e = w
        .add_boid(SpeciesId::FIRST, Vec2::new(f32::NAN, 0.0), Vec2::ZERO)
        .unwrap_err();
    assert!(e.to_string().contains("position"), "{e}");
    assert!(
        w.add_boid(SpeciesId::new(1), Vec2::ZERO, Vec2::ZERO)
            .is_err()
    );
    assert_eq!(w.len(), 0, "nothing was added by failed calls");
}

#[test]
fn added_species_keeps_existing_relations() {
    let mut w = World2::new(cfg(), vec![SpeciesParams::default(); 2]).unwrap();
    w.set_relation(
        SpeciesId::FIRST,
        SpeciesId::new(1),
        murmuration::Relation::Ignore,
    )
    .unwrap();
    let s = w.add_species(SpeciesParams::default()).unwrap();
    assert_eq!(s, SpeciesId::new(2));
    assert_eq!(w.relations().get(0, 1), murmuration::Relation::Ignore);
    assert_eq!(w.relations().get(2, 2), murmuration::Relation::Flock);
}

/// Banked flight needs a vertical axis: a 2D species that rolls is refused by
/// name, on creation and on a later change, and a 3D one is accepted.
#[test]
fn banked_flight_is_refused_in_2d_by_name() {
    let banked = SpeciesParams {
        roll_rate: 90.0,
        ..Default::default()
    };
    let e = World2::new(cfg(), vec![banked]).unwrap_err();
    assert!(
        e.to_string().contains("species[0].roll_rate = 90") && e.to_string().contains("2D"),
        "{e}"
    );
    let mut w = World2::new(cfg(), vec![SpeciesParams::default()]).unwrap();
    let e = w.set_species_params(SpeciesId::FIRST, banked).unwrap_err();
    assert!(e.to_string().contains("roll_rate"), "{e}");
    let cfg3 = WorldConfig::new(murmuration::glam::Vec3::splat(10.0), Boundary::Wrap);
    assert!(murmuration::World3::new(cfg3, vec![banked]).is_ok());
}
