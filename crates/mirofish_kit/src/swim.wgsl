// The fish's swimming stroke in a volume (`look3d`): the body bends in a
// wave that travels from the head to the tail, still at the snout and
// widest at the tail. Each fish's place in its stroke and how hard it
// swims come in its `MeshTag` (see `look3d::swim_tag`), so every fish of a
// school still shares one mesh, one material and one instanced draw.
//
// Otherwise Bevy's own mesh vertex stage (`bevy_pbr::render::mesh.wgsl`)
// for a mesh without skin or morph targets; the standard material's
// fragment stage lights it.

#import bevy_pbr::{
    mesh_functions,
    forward_io::{Vertex, VertexOutput},
    view_transformations::position_world_to_clip,
}

struct Swim {
    // x: the fish's length (the mesh's, head at -z/2, tail at +z/2);
    // y: how far the tail's tip swings to each side, as a share of it;
    // z: waves along the body.
    shape: vec4<f32>,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<uniform> swim: Swim;

const TAU: f32 = 6.283185307;

@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    var out: VertexOutput;
    let tag = mesh_functions::get_tag(vertex.instance_index);
    // The low 16 bits: the phase; the next 8: the stroke's strength.
    let phase = f32(tag & 0xffffu) / 65536.0 * TAU;
    let strength = f32((tag >> 16u) & 0xffu) / 255.0;

    let length = max(swim.shape.x, 1e-3);
    let reach = swim.shape.y * strength * length;
    let k = swim.shape.z * TAU;
    // 0 at the snout, 1 at the tail fin's tip.
    let s = clamp(vertex.position.z / length + 0.5, 0.0, 1.0);
    let wave = phase - k * s;
    // The sideways offset grows with the square of the distance from the
    // snout; its slope along the body turns the normals with it.
    let offset = reach * s * s * sin(wave);
    let slope = reach * (2.0 * s * sin(wave) - s * s * k * cos(wave)) / length;
    let local = vec3<f32>(vertex.position.x + offset, vertex.position.yz);

    let world_from_local = mesh_functions::get_world_from_local(vertex.instance_index);

#ifdef VERTEX_NORMALS
    // A shear x += f(z) turns a normal n into (n.x, n.y, n.z - f'(z) n.x).
    let normal = normalize(vec3<f32>(vertex.normal.xy, vertex.normal.z - slope * vertex.normal.x));
    out.world_normal = mesh_functions::mesh_normal_local_to_world(normal, vertex.instance_index);
#endif

#ifdef VERTEX_POSITIONS
    out.world_position = mesh_functions::mesh_position_local_to_world(world_from_local, vec4<f32>(local, 1.0));
    out.position = position_world_to_clip(out.world_position.xyz);
#endif

#ifdef VERTEX_UVS_A
    out.uv = vertex.uv;
#endif
#ifdef VERTEX_UVS_B
    out.uv_b = vertex.uv_b;
#endif

#ifdef VERTEX_TANGENTS
    out.world_tangent = mesh_functions::mesh_tangent_local_to_world(
        world_from_local,
        vertex.tangent,
        vertex.instance_index
    );
#endif

#ifdef VERTEX_COLORS
    out.color = vertex.color;
#endif

#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = vertex.instance_index;
#endif

#ifdef VISIBILITY_RANGE_DITHER
    out.visibility_range_dither = mesh_functions::get_visibility_range_dither_level(
        vertex.instance_index, world_from_local[3]);
#endif

    return out;
}
