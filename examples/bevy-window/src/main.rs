//! A Bevy game with a glowing flock: 2,000 boids (Murmuration's embedded default
//! scenario) as entities with a triangle mesh each, a light that follows the
//! mouse and draws the flock, a click that scatters it, a rock it flows around.
//!
//!     cargo run --release --manifest-path examples/bevy-window/Cargo.toml
//!     ... -- --screenshot shot.png [FRAMES]   (saves frame FRAMES, then exits)

use bevy::camera::ScalingMode;
use bevy::post_process::bloom::Bloom;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy_murmuration::{
    AnyFlock, Boid, BoidSync, Flock2, FlockAttractor, FlockObstacle, FlockPulse, FlockSet,
    MurmurationPlugin, Shape,
};

/// The engine's default: 2,000 boids in a 60 × 60 wrap-around box.
const SCENARIO: &str = include_str!("../../../scenarios/default.toml");
const CENTRE: Vec3 = Vec3::new(30.0, 30.0, 0.0);

/// The light the flock is drawn to (the mouse).
#[derive(Component)]
struct Light;

/// The triangle and the glowing material every boid is drawn with.
#[derive(Resource)]
struct BoidLook {
    mesh: Handle<Mesh>,
    material: Handle<ColorMaterial>,
}

/// `--screenshot PATH [FRAMES]`: the frame to save and where.
#[derive(Resource)]
struct ScreenshotAt {
    path: String,
    frame: u32,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "Murmuration in Bevy".into(),
            resolution: (1280, 720).into(),
            ..default()
        }),
        ..default()
    }))
    .add_plugins(MurmurationPlugin::default())
    .insert_resource(ClearColor(Color::srgb(0.01, 0.01, 0.03)))
    .add_systems(Startup, setup)
    .add_systems(Update, (dress_boids, follow_mouse))
    .add_systems(FixedUpdate, pulse_on_click.before(FlockSet::Mirror));
    if args.next().as_deref() == Some("--screenshot") {
        let path = args.next().unwrap_or_else(|| "bevy-window.png".into());
        let frame = args.next().and_then(|f| f.parse().ok()).unwrap_or(180);
        app.insert_resource(ScreenshotAt { path, frame })
            .add_systems(Update, screenshot);
    }
    app.run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn((
        Camera2d,
        Bloom::NATURAL,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::AutoMin {
                min_width: 64.0,
                min_height: 64.0,
            },
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_translation(CENTRE),
    ));
    // A boid: a dart 0.7 long pointing along +X (the plugin turns +X along the
    // velocity), in a colour bright enough to bloom.
    commands.insert_resource(BoidLook {
        mesh: meshes.add(Triangle2d::new(
            Vec2::new(0.45, 0.0),
            Vec2::new(-0.25, 0.18),
            Vec2::new(-0.25, -0.18),
        )),
        material: materials.add(Color::LinearRgba(LinearRgba::rgb(1.6, 3.2, 4.0))),
    });

    // Visibility: the boids' meshes inherit it from the flock, their parent.
    let mut flock = commands.spawn(Visibility::default());
    AnyFlock::from_toml(SCENARIO)
        .expect("the embedded scenario parses")
        .with_sync(BoidSync::Entities)
        .insert_into(&mut flock);
    let flock = flock.id();
    commands.spawn((
        Light,
        FlockAttractor {
            follow: 3.0,
            ..FlockAttractor::new(0.25, 6.0)
        },
        Transform::from_translation(CENTRE + Vec3::new(12.0, 0.0, 0.0)),
        ChildOf(flock),
        Mesh2d(meshes.add(Circle::new(0.6))),
        MeshMaterial2d(materials.add(Color::LinearRgba(LinearRgba::rgb(6.0, 4.0, 1.0)))),
    ));
    commands.spawn((
        FlockObstacle(Shape::Sphere { radius: 5.0 }),
        Transform::from_translation(CENTRE + Vec3::new(-10.0, 5.0, -1.0)),
        ChildOf(flock),
        Mesh2d(meshes.add(Circle::new(5.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.08, 0.07, 0.1))),
    ));
}

/// Gives each new boid entity its mesh and material.
fn dress_boids(mut commands: Commands, look: Res<BoidLook>, new: Query<Entity, Added<Boid>>) {
    for e in &new {
        commands.entity(e).insert((
            Mesh2d(look.mesh.clone()),
            MeshMaterial2d(look.material.clone()),
        ));
    }
}

/// Where the mouse points, in the flock's space (the flock sits at the origin).
fn cursor(window: &Window, camera: (&Camera, &GlobalTransform)) -> Option<Vec2> {
    let at = window.cursor_position()?;
    camera.0.viewport_to_world_2d(camera.1, at).ok()
}

/// The light follows the mouse (and circles the rock when taking a screenshot,
/// where no mouse moves); the flock's attractor glides after it.
fn follow_mouse(
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut light: Single<&mut Transform, With<Light>>,
    time: Res<Time>,
    screenshot: Option<Res<ScreenshotAt>>,
) {
    if screenshot.is_some() {
        let a = time.elapsed_secs() * std::f32::consts::TAU / 12.0;
        light.translation = CENTRE + Vec3::new(14.0 * a.cos(), 14.0 * a.sin(), 0.5);
    } else if let Some(p) = cursor(&window, *camera) {
        light.translation = p.extend(0.5);
    }
}

/// A left click scatters the flock around the mouse.
fn pulse_on_click(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    flock: Single<Entity, With<Flock2>>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    if let Some(p) = cursor(&window, *camera) {
        commands.spawn((
            FlockPulse {
                radius: 8.0,
                strength: 40.0,
                duration: 0.4,
            },
            Transform::from_translation(p.extend(0.0)),
            ChildOf(*flock),
        ));
    }
}

/// Saves the chosen frame and exits shortly after.
fn screenshot(
    mut commands: Commands,
    at: Res<ScreenshotAt>,
    mut frame: Local<u32>,
    mut exit: MessageWriter<AppExit>,
) {
    *frame += 1;
    if *frame == at.frame {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(at.path.clone()));
    }
    if *frame == at.frame + 10 {
        exit.write(AppExit::Success);
    }
}
