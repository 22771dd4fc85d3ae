//! Cameras: a 2D view (centre and zoom) and a 3D orbit (target, yaw, pitch,
//! distance), each giving the view-projection matrix for an aspect ratio.

use glam::camera::rh::{proj::directx, view};
use glam::{Mat4, Vec2, Vec3};
use serde::{Deserialize, Serialize};

/// A camera for either dimension.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Camera {
    /// Orthographic, looking down on the plane.
    TopDown {
        /// World point at the centre of the picture, units.
        center: Vec2,
        /// Half the picture's height in world units (smaller zooms in), > 0.
        half_height: f32,
    },
    /// Perspective, orbiting a target.
    Orbit {
        /// The point looked at, units.
        target: Vec3,
        /// Angle around the vertical (y) axis, radians.
        yaw: f32,
        /// Angle above the horizontal, radians, in (−π/2, π/2).
        pitch: f32,
        /// Distance from the target, units, > 0.
        distance: f32,
        /// Vertical field of view, radians, in (0, π).
        fov: f32,
    },
}

impl Camera {
    /// A camera showing the whole box `[min, max]` (2D when `dim` is 2).
    pub fn fit(dim: usize, min: Vec3, max: Vec3, aspect: f32) -> Self {
        let centre = 0.5 * (min + max);
        let size = max - min;
        if dim == 2 {
            let half_h = 0.5 * size.y.max(size.x / aspect.max(1e-6));
            Camera::TopDown {
                center: centre.truncate(),
                half_height: 1.04 * half_h.max(1e-6),
            }
        } else {
            let fov = 45f32.to_radians();
            let radius = 0.5 * size.length();
            Camera::Orbit {
                target: centre,
                yaw: 0.6,
                pitch: 0.45,
                distance: (radius / (0.5 * fov).sin()).max(1e-3) * 0.95,
                fov,
            }
        }
    }

    /// Frames the box `[min, max]` (a flock's extent) keeping the view's angles:
    /// a 2D view centred on it and tall enough to hold it, an orbit aimed at its
    /// centre from the distance that fits its bounding sphere. The view always
    /// centres on the box; its size (half height or distance) moves only the
    /// fraction `blend` in (0, 1] of the way, so a following camera zooms smoothly
    /// without trailing the flock.
    pub fn frame(&mut self, min: Vec3, max: Vec3, aspect: f32, blend: f32) {
        let blend = blend.clamp(0.0, 1.0);
        let fitted = Camera::fit(self.dim(), min, max, aspect);
        match (self, fitted) {
            (
                Camera::TopDown {
                    center,
                    half_height,
                },
                Camera::TopDown {
                    center: c,
                    half_height: h,
                },
            ) => {
                *center = c;
                *half_height += (h - *half_height) * blend;
            }
            (
                Camera::Orbit {
                    target, distance, ..
                },
                Camera::Orbit {
                    target: t,
                    distance: d,
                    ..
                },
            ) => {
                *target = t;
                *distance += (d - *distance) * blend;
            }
            _ => unreachable!("fit keeps the dimension"),
        }
    }

    /// 2 for a top-down view, 3 for an orbit.
    fn dim(&self) -> usize {
        match self {
            Camera::TopDown { .. } => 2,
            Camera::Orbit { .. } => 3,
        }
    }

    /// World-to-clip matrix for a picture of the given aspect (width / height).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        match *self {
            Camera::TopDown {
                center,
                half_height,
            } => {
                let hw = half_height * aspect;
                directx::orthographic(
                    center.x - hw,
                    center.x + hw,
                    center.y - half_height,
                    center.y + half_height,
                    -1e6,
                    1e6,
                )
            }
            Camera::Orbit {
                target,
                distance,
                fov,
                ..
            } => {
                let eye = self.eye().unwrap_or(target + Vec3::Z);
                let near = (distance * 1e-3).max(1e-3);
                directx::perspective(fov, aspect, near, distance * 20.0 + 1.0)
                    * view::look_at_mat4(eye, target, Vec3::Y)
            }
        }
    }

    /// The eye position of an orbit camera.
    pub fn eye(&self) -> Option<Vec3> {
        match *self {
            Camera::Orbit {
                target,
                yaw,
                pitch,
                distance,
                ..
            } => Some(
                target
                    + distance
                        * Vec3::new(
                            pitch.cos() * yaw.sin(),
                            pitch.sin(),
                            pitch.cos() * yaw.cos(),
                        ),
            ),
            Camera::TopDown { .. } => None,
        }
    }

    /// The point looked at (z = 0 for a 2D view).
    pub fn target(&self) -> Vec3 {
        match *self {
            Camera::TopDown { center, .. } => center.extend(0.0),
            Camera::Orbit { target, .. } => target,
        }
    }

    /// Moves the point looked at (following the flock's centroid).
    pub fn set_target(&mut self, p: Vec3) {
        match self {
            Camera::TopDown { center, .. } => *center = p.truncate(),
            Camera::Orbit { target, .. } => *target = p,
        }
    }

    /// Zooms by `factor` (> 1 zooms out).
    pub fn zoom(&mut self, factor: f32) {
        match self {
            Camera::TopDown { half_height, .. } => *half_height = (*half_height * factor).max(1e-6),
            Camera::Orbit { distance, .. } => *distance = (*distance * factor).max(1e-3),
        }
    }

    /// Pans a 2D camera by a world offset, or orbits a 3D one by angles (radians).
    pub fn drag(&mut self, d: Vec2) {
        match self {
            Camera::TopDown { center, .. } => *center += d,
            Camera::Orbit { yaw, pitch, .. } => {
                *yaw += d.x;
                *pitch = (*pitch + d.y).clamp(-1.5, 1.5);
            }
        }
    }

    /// The world point under a pixel of a 2D view drawn in a viewport starting
    /// at `origin` (pixels) of `size` pixels (`None` in 3D).
    pub fn unproject_in(&self, pixel: Vec2, origin: Vec2, size: Vec2) -> Option<Vec2> {
        self.unproject_2d(pixel - origin, size)
    }

    /// The ray through a pixel of a view drawn in a viewport starting at `origin`
    /// (pixels) of `size` pixels: a point on the near plane and a unit direction
    /// into the scene (for picking a boid in 3D; straight down in 2D).
    pub fn ray_in(&self, pixel: Vec2, origin: Vec2, size: Vec2) -> (Vec3, Vec3) {
        let size = size.max(Vec2::ONE);
        let p = pixel - origin;
        let ndc = Vec2::new(2.0 * p.x / size.x - 1.0, 1.0 - 2.0 * p.y / size.y);
        let inv = self.view_proj(size.x / size.y).inverse();
        let near = inv.project_point3(ndc.extend(0.0));
        let far = inv.project_point3(ndc.extend(1.0));
        (near, (far - near).normalize_or(Vec3::NEG_Z))
    }

    /// The world point under a pixel of a 2D view (`None` in 3D).
    pub fn unproject_2d(&self, pixel: Vec2, size: Vec2) -> Option<Vec2> {
        match *self {
            Camera::TopDown {
                center,
                half_height,
            } => {
                let aspect = size.x / size.y.max(1.0);
                let ndc = Vec2::new(2.0 * pixel.x / size.x - 1.0, 1.0 - 2.0 * pixel.y / size.y);
                Some(center + ndc * Vec2::new(half_height * aspect, half_height))
            }
            Camera::Orbit { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fitted_2d_camera_maps_the_box_inside_the_picture() {
        let cam = Camera::fit(2, Vec3::ZERO, Vec3::new(60.0, 30.0, 0.0), 16.0 / 9.0);
        let m = cam.view_proj(16.0 / 9.0);
        for corner in [Vec3::ZERO, Vec3::new(60.0, 30.0, 0.0)] {
            let c = m.project_point3(corner);
            assert!(c.x.abs() <= 1.0 && c.y.abs() <= 1.0, "{corner} -> {c}");
        }
        let c = m.project_point3(Vec3::new(30.0, 15.0, 0.0));
        assert!(c.truncate().length() < 1e-5);
        let p = cam
            .unproject_2d(Vec2::new(800.0, 450.0), Vec2::new(1600.0, 900.0))
            .unwrap();
        assert!((p - Vec2::new(30.0, 15.0)).length() < 1e-3);
    }

    /// Framing a flock centres it at once, keeps the orbit's angles and eases
    /// the distance; the fully framed flock fits inside the picture.
    #[test]
    fn framing_centres_the_flock_and_eases_the_zoom() {
        let mut cam = Camera::fit(3, Vec3::ZERO, Vec3::splat(200.0), 1.6);
        let (lo, hi) = (Vec3::new(40.0, 50.0, 60.0), Vec3::new(60.0, 55.0, 90.0));
        let far = match cam {
            Camera::Orbit { distance, .. } => distance,
            _ => unreachable!(),
        };
        cam.frame(lo, hi, 1.6, 0.25);
        let Camera::Orbit {
            target,
            distance,
            yaw,
            ..
        } = cam
        else {
            unreachable!()
        };
        assert_eq!(target, 0.5 * (lo + hi));
        assert_eq!(yaw, 0.6, "the view's angles stay");
        let near = match Camera::fit(3, lo, hi, 1.6) {
            Camera::Orbit { distance, .. } => distance,
            _ => unreachable!(),
        };
        assert!((distance - (far + 0.25 * (near - far))).abs() < 1e-3);
        cam.frame(lo, hi, 1.6, 1.0);
        let m = cam.view_proj(1.6);
        for corner in [lo, hi, Vec3::new(lo.x, hi.y, lo.z)] {
            let c = m.project_point3(corner);
            assert!(c.x.abs() <= 1.0 && c.y.abs() <= 1.0, "{corner} -> {c}");
        }
        let mut top = Camera::fit(2, Vec3::ZERO, Vec3::new(100.0, 100.0, 0.0), 1.0);
        top.frame(
            Vec3::new(10.0, 20.0, 0.0),
            Vec3::new(30.0, 30.0, 0.0),
            1.0,
            1.0,
        );
        let Camera::TopDown {
            center,
            half_height,
        } = top
        else {
            unreachable!()
        };
        assert_eq!(center, Vec2::new(20.0, 25.0));
        assert!((half_height - 1.04 * 10.0).abs() < 1e-4, "{half_height}");
    }

    #[test]
    fn the_ray_through_a_projected_point_passes_through_it() {
        let cam = Camera::fit(3, Vec3::ZERO, Vec3::new(20.0, 10.0, 30.0), 1.6);
        let size = Vec2::new(800.0, 500.0);
        let origin = Vec2::new(300.0, 20.0);
        for p in [Vec3::new(10.0, 5.0, 15.0), Vec3::new(2.0, 9.0, 27.0)] {
            let clip = cam.view_proj(size.x / size.y).project_point3(p);
            let pixel =
                origin + Vec2::new((clip.x + 1.0) * 0.5 * size.x, (1.0 - clip.y) * 0.5 * size.y);
            let (o, d) = cam.ray_in(pixel, origin, size);
            let off = (p - o) - (p - o).dot(d) * d;
            assert!(off.length() < 1e-2, "{p}: the ray misses by {off}");
            assert!((p - o).dot(d) > 0.0, "the point is in front");
        }
        let top = Camera::fit(2, Vec3::ZERO, Vec3::new(40.0, 20.0, 0.0), 2.0);
        let (_, d) = top.ray_in(Vec2::new(10.0, 10.0), Vec2::ZERO, Vec2::new(400.0, 200.0));
        assert!(
            d.z.abs() > 0.99,
            "2D rays look straight down the z axis: {d}"
        );
    }

    #[test]
    fn a_fitted_orbit_camera_sees_the_whole_box() {
        let (lo, hi) = (Vec3::ZERO, Vec3::new(90.0, 40.0, 90.0));
        let cam = Camera::fit(3, lo, hi, 1.5);
        let m = cam.view_proj(1.5);
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            );
            let c = m.project_point3(corner);
            assert!(
                c.x.abs() <= 1.2 && c.y.abs() <= 1.2 && (0.0..1.0).contains(&c.z),
                "{corner} -> {c}"
            );
        }
    }
}
