// Stand-ins for behaviours.wgsl and relations.wgsl in a world without obstacles,
// entities or relations: the names `steer` calls, and no bindings, so a pass
// binds group 0 alone and stays within WebGPU's default 8 storage buffers per
// stage (a browser counts a binding named in a dead branch as used). Never
// called: OBSTACLES, ENTITIES, RELATIONS and EATING are false in such a world.

const DEAD: u32 = 0x80000000u;

struct Behave {
    attractors: u32,
    pulses: u32,
    paths: u32,
    skin: f32,
}
const behave = Behave(0u, 0u, 0u, 0.0);

struct Interaction {
    away: V,
    seen: bool,
    pull: V,
    heading: V,
}

fn clearance(p: V) -> f32 {
    return 3.4e38;
}

fn avoidance(p: V, v: V, lookahead: f32, margin: f32, max_speed: f32, max_force: f32) -> V {
    return V(0.0);
}

fn resolve(start: V, to: V, v: ptr<function, V>, skin: f32) -> V {
    return to;
}

fn frame_base() -> u32 {
    return 0u;
}

fn arrive(base: u32, k: u32, species_index: u32, p: V, v: V) -> V {
    return V(0.0);
}

fn push(base: u32, k: u32, p: V) -> V {
    return V(0.0);
}

fn follow_path(base: u32, k: u32, species_index: u32, p: V, v: V) -> V {
    return V(0.0);
}

fn wander(base: u32, id: u32, species_index: u32, v: V) -> V {
    return V(0.0);
}

fn interactions(p: V, v: V, id: u32, a: u32) -> Interaction {
    return Interaction(V(0.0), false, V(0.0), V(0.0));
}

fn write_actor(m: vec2<u32>, p: V, v: V) {}

fn cull_actors(lid: u32, i: u32) {}
