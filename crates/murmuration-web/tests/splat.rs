//! The CPU drawing of the flock (`mm_splat`'s picture): sprites where the
//! boids are, pointing where they head, clipped at the edges, in each
//! species' look.

use murmuration_web::splat::{BACKGROUND, Looks, Splat, View};

fn view(width: u32, height: u32) -> View {
    View {
        width,
        height,
        min: [0.0, 0.0],
        scale: 10.0,
        ox: 0.0,
        oy: 0.0,
    }
}

/// Pixels brighter than the background (any channel above it by 40).
fn lit(picture: &[u32]) -> Vec<usize> {
    let bg = BACKGROUND.to_le_bytes();
    (0..picture.len())
        .filter(|&i| {
            let p = picture[i].to_le_bytes();
            (0..3).any(|c| p[c] > bg[c] + 40)
        })
        .collect()
}

/// The mean lit column and row of a picture `w` pixels wide.
fn centroid(lit: &[usize], w: usize) -> (f32, f32) {
    let n = lit.len() as f32;
    let x = lit.iter().map(|&i| (i % w) as f32).sum::<f32>() / n;
    let y = lit.iter().map(|&i| (i / w) as f32).sum::<f32>() / n;
    (x, y)
}

#[test]
fn one_boid_is_a_sprite_at_its_place_with_its_broad_end_behind_it() {
    let mut splat = Splat::default();
    let looks = Looks {
        glow: false,
        ..Looks::default()
    };
    // A boid at (5, 3) world units heading +x: pixel (50, 30), 10 px half-size.
    let picture = splat
        .draw(&[5.0, 3.0, 0.0, 0.0], &view(100, 60), 1.0, &looks)
        .to_vec();
    assert_eq!(picture.len(), 100 * 60);
    let on = lit(&picture);
    assert!(on.len() > 20 && on.len() < 150, "{} lit pixels", on.len());
    let (x, y) = centroid(&on, 100);
    // An arrowhead: its mass sits behind the boid (wide base), centred on its row.
    assert!(
        (44.0..50.0).contains(&x) && (y - 30.0).abs() < 1.0,
        "centroid ({x}, {y})"
    );
    // Heading +y (rows count upward): the mass moves below the boid instead.
    let up = splat.draw(
        &[5.0, 3.0, std::f32::consts::FRAC_PI_2, 0.0],
        &view(100, 60),
        1.0,
        &looks,
    );
    let (x, y) = centroid(&lit(up), 100);
    assert!(
        (x - 50.0).abs() < 1.0 && (24.0..30.0).contains(&y),
        "centroid ({x}, {y})"
    );
}

#[test]
fn glow_and_species_looks_colour_the_sprite() {
    let mut splat = Splat::default();
    let mut looks = Looks::default();
    looks.colours[1] = [1.0, 0.0, 0.0];
    looks.sizes[1] = 2.0;
    let boids = [2.0, 3.0, 0.0, 0.0, 7.0, 3.0, 0.0, 1.0];
    let glowing = lit(splat.draw(&boids, &view(100, 60), 0.8, &looks)).len();
    looks.glow = false;
    let picture = splat.draw(&boids, &view(100, 60), 0.8, &looks).to_vec();
    assert!(glowing > lit(&picture).len(), "the halo lights more pixels");
    // Species 1 is red and twice the size: more pixels, and none of them blue.
    let (left, right): (Vec<usize>, Vec<usize>) =
        lit(&picture).into_iter().partition(|&i| i % 100 < 45);
    assert!(
        right.len() > 3 * left.len(),
        "{} vs {}",
        right.len(),
        left.len()
    );
    let bg = BACKGROUND.to_le_bytes();
    assert!(
        right
            .iter()
            .all(|&i| picture[i].to_le_bytes()[2] <= bg[2] + 39)
    );
    assert!(left.iter().any(|&i| picture[i].to_le_bytes()[2] > 200));
}

#[test]
fn sprites_add_up_and_saturate_and_never_spill_past_the_edges() {
    let mut splat = Splat::default();
    let looks = Looks::default();
    // A thousand boids on one point: white, not wrapped around.
    let stack: Vec<f32> = (0..1000).flat_map(|_| [5.0, 3.0, 0.0, 0.0]).collect();
    let picture = splat.draw(&stack, &view(100, 60), 1.0, &looks).to_vec();
    assert_eq!(picture[30 * 100 + 48].to_le_bytes(), [255, 255, 255, 255]);
    // Boids on and past every edge and corner, NaN and infinite ones: drawn
    // clipped or skipped, nothing outside the picture touched (no panic).
    let edges = [
        0.0,
        0.0,
        1.0,
        0.0,
        10.0,
        6.0,
        2.0,
        0.0,
        -0.5,
        3.0,
        3.0,
        0.0,
        10.4,
        3.0,
        0.0,
        0.0,
        5.0,
        -0.9,
        0.0,
        0.0,
        5.0,
        6.9,
        0.0,
        0.0,
        1e30,
        1e30,
        0.0,
        0.0,
        f32::NAN,
        3.0,
        0.0,
        0.0,
        5.0,
        3.0,
        f32::INFINITY,
        0.0,
        -1e9,
        -1e9,
        0.0,
        0.0,
        -1e30,
        3.0,
        0.0,
        0.0,
    ];
    let picture = splat.draw(&edges, &view(100, 60), 1.0, &looks);
    assert_eq!(picture.len(), 6000);
    assert!(!lit(picture).is_empty());
    assert!(lit(splat.draw(&[], &view(1, 1), 1.0, &looks)).is_empty());
}

/// Each picture differs from the one before only inside `changed()`, which
/// covers both drawings (the page uploads that rectangle alone).
#[test]
fn only_the_changed_rectangle_differs_from_the_picture_before() {
    let mut splat = Splat::default();
    let looks = Looks::default();
    let v = view(100, 60);
    let _ = splat.draw(&[2.0, 1.5, 0.0, 0.0], &v, 0.5, &looks);
    assert_eq!(
        *splat.changed(),
        [0, 0, 100, 60],
        "a new picture changes everywhere"
    );
    let a = vec![2.0, 1.5, 0.0, 0.0];
    let b = vec![8.0, 4.5, 1.0, 0.0];
    let ab = [a.clone(), b.clone()].concat();
    // (before, after, pixels that must be inside the change)
    type Case<'a> = (&'a [f32], &'a [f32], &'a [(usize, usize)]);
    let cases: [Case; 4] = [
        (&a, &b, &[(20, 15), (80, 45)]),
        (&b, &ab, &[(20, 15), (80, 45)]),
        (&ab, &[], &[(20, 15), (80, 45)]),
        (&[], &a, &[(20, 15)]),
    ];
    for (before, after, inside) in cases {
        let prev = splat.draw(before, &v, 0.5, &looks).to_vec();
        let now = splat.draw(after, &v, 0.5, &looks).to_vec();
        let [x, y, w, h] = splat.changed().map(|c| c as usize);
        let within = |px: usize, py: usize| (x..x + w).contains(&px) && (y..y + h).contains(&py);
        for i in 0..now.len() {
            if !within(i % 100, i / 100) {
                assert_eq!(
                    now[i],
                    prev[i],
                    "pixel {i} changed outside {:?}",
                    splat.changed()
                );
            }
        }
        for &(px, py) in inside {
            assert!(within(px, py), "({px}, {py}) outside {:?}", splat.changed());
        }
    }
    let _ = splat.draw(&[], &v, 0.5, &looks);
    let _ = splat.draw(&[], &v, 0.5, &looks);
    assert_eq!(
        splat.changed()[2] * splat.changed()[3],
        0,
        "nothing to nothing changes nothing"
    );
}
