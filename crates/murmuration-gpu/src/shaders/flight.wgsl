// Banked flight after StarDisplay (the core's flight.rs, 3D only): the steering's
// sideways part sets a bank the bird rolls toward at `roll_rate`, lift grows with
// speed² along the banked up axis, gravity pulls down. The bank is read back from
// the stored steering, so it needs no state.

const FLIGHT_UP: vec3<f32> = vec3<f32>(0.0, 1.0, 0.0);
const MIN_LIFT: f32 = 0.2;

// Side and up axes of a heading `f` (a unit vector).
fn flight_frame(f: vec3<f32>) -> array<vec3<f32>, 2> {
    var side = cross(f, FLIGHT_UP);
    if dot(side, side) <= 1e-6 {
        side = cross(f, vec3<f32>(1.0, 0.0, 0.0));
    }
    let s = normalize(side);
    return array<vec3<f32>, 2>(s, cross(s, f));
}

fn banked(a_in: V, prev_in: V, v_in: V) -> V {
    if DIM != 3u {
        return a_in;
    }
    let v = vec4_of(v_in).xyz;
    let speed = length(v);
    if speed <= 1e-6 {
        return a_in;
    }
    let f = v / speed;
    let fr = flight_frame(f);
    let s = fr[0];
    let u = fr[1];
    let a3 = vec4_of(a_in).xyz;
    let g = sp.gravity;
    let gravity = FLIGHT_UP * -g;
    let max_bank = radians(sp.max_bank);
    let prev = vec4_of(prev_in).xyz;
    var back = v - prev * sim.dt;
    let lb = length(back);
    if lb > 0.0 && lb <= 3.4e38 {
        back = back / lb;
    } else {
        back = f;
    }
    let pf = flight_frame(back);
    let lift_prev = prev - gravity;
    let ps = dot(lift_prev, pf[0]);
    let pu = dot(lift_prev, pf[1]);
    var was = 0.0;
    if !(ps == 0.0 && pu == 0.0) {
        was = atan2(ps, pu);
    }
    was = clamp(was, -max_bank, max_bank);
    let a_side = dot(a3, s);
    let a_up = dot(a3, u);
    let want = clamp(atan2(a_side, g + a_up), -max_bank, max_bank);
    let roll = radians(sp.roll_rate) * sim.dt;
    let bank = was + clamp(want - was, -roll, roll);
    let n = u * cos(bank) + s * sin(bank);
    var v0 = sp.max_speed;
    if sp.cruise_speed > 0.0 {
        v0 = sp.cruise_speed;
    }
    let r = speed / v0;
    let lift = max(g * r * r * dot(u, FLIGHT_UP) + a_up, MIN_LIFT * g);
    let out = f * dot(a3, f) + n * lift + gravity;
    return v_from(vec4<f32>(out, 0.0));
}
