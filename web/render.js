// The flock in WebGL2, two ways:
// - points: one point sprite per boid (a glowing arrowhead, additively blended
//   on a night background, as the native renderer's glow pass looks), its
//   position and heading read from a float texture, one RGBA32F texel per boid
//   (the engine's instance array as it is). On a GPU this is nothing.
// - cpu: where WebGL itself is software (SwiftShader, llvmpipe: every point
//   costs about 1 µs whatever its size, so 50,000 boids capped the page at 18
//   frames/s), the engine draws the same sprites into a picture on the CPU
//   (`mm_splat`) and WebGL only shows it: one upload and one triangle.
// The first draw of instanced quads (six vertices a boid) cost SwiftShader
// more than points at every count (10,000 boids: 40 → 44 frames/s as points).

import { INSTANCE_FLOATS } from './engine.js';

const TEXTURE_WIDTH = 1024;

const VERTEX = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
uniform sampler2D u_boids;
uniform vec4 u_view;      // world min x, min y; clip scale x, y
uniform float u_size;     // sprite half-size, world units
uniform float u_pixels;   // pixels per world unit
uniform float u_max_point; // the largest point size the driver draws
uniform vec3 u_palette[8];
uniform float u_scale[8]; // each species' body size (its preset's look)
flat out vec2 v_heading;
flat out vec3 v_colour;
void main() {
  int i = gl_VertexID;
  vec4 b = texelFetch(u_boids, ivec2(i % ${TEXTURE_WIDTH}, i / ${TEXTURE_WIDTH}), 0);
  int s = int(b.w) & 7;
  gl_Position = vec4((b.xy - u_view.xy) * u_view.zw - 1.0, 0.0, 1.0);
  gl_PointSize = min(2.0 * u_size * u_scale[s] * u_pixels, u_max_point);
  v_heading = vec2(cos(b.z), sin(b.z));
  v_colour = u_palette[s];
}`;

// The CPU's picture, shown as it is: one triangle over the canvas.
const SHOW_VERTEX = `#version 300 es
const vec2 CORNERS[3] = vec2[3](vec2(-1, -1), vec2(3, -1), vec2(-1, 3));
out vec2 v_uv;
void main() {
  vec2 c = CORNERS[gl_VertexID];
  v_uv = c * 0.5 + 0.5;
  gl_Position = vec4(c, 0.0, 1.0);
}`;
const SHOW_FRAGMENT = `#version 300 es
precision mediump float;
uniform sampler2D u_picture;
in vec2 v_uv;
out vec4 colour;
void main() {
  colour = texture(u_picture, v_uv);
}`;

// A renderer name that says WebGL is drawn in software.
const SOFTWARE = /swiftshader|llvmpipe|softpipe|lavapipe|software/i;

const FRAGMENT = `#version 300 es
precision mediump float;
flat in vec2 v_heading;
flat in vec3 v_colour;
uniform float u_glow;
out vec4 colour;
void main() {
  // The sprite's square in the boid's frame: x along the velocity, y to its
  // left (gl_PointCoord's y runs down the screen).
  vec2 q = vec2(gl_PointCoord.x * 2.0 - 1.0, 1.0 - gl_PointCoord.y * 2.0);
  vec2 uv = vec2(dot(q, v_heading), dot(q, vec2(-v_heading.y, v_heading.x)));
  // The body: an arrowhead pointing along +x (the velocity), bright and sharp.
  float x = uv.x, y = abs(uv.y);
  float body = step(y, 0.42 * (0.55 - x)) * step(-0.55, x);
  // The glow: a soft halo around it.
  float r2 = dot(uv, uv);
  float halo = u_glow * exp(-5.0 * r2) * 0.55;
  vec3 c = v_colour * (body * 0.85 + halo) + vec3(0.15) * body;
  colour = vec4(c, 1.0);
}`;

// Species colours (linear-ish RGB), the same order as the native renderer's.
const PALETTE = [
  [0.45, 0.85, 1.0], [1.0, 0.45, 0.35], [1.0, 0.85, 0.35], [0.55, 1.0, 0.55],
  [0.85, 0.55, 1.0], [1.0, 0.6, 0.85], [0.6, 0.7, 1.0], [0.9, 0.9, 0.9],
];

function program(gl, vertex, fragment) {
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl, gl.VERTEX_SHADER, vertex));
  gl.attachShader(p, compile(gl, gl.FRAGMENT_SHADER, fragment));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(`program: ${gl.getProgramInfoLog(p)}`);
  return p;
}

function compile(gl, type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) {
    throw new Error(`shader: ${gl.getShaderInfoLog(s)}`);
  }
  return s;
}

// RGBA pixels brighter than a dim grey (the tests' "is the flock drawn").
export function countLit(px) {
  let n = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i] + px[i + 1] + px[i + 2] > 150) n++;
  return n;
}

export class FlockRenderer {
  constructor(canvas) {
    const gl = canvas.getContext('webgl2', { antialias: false, alpha: false, preserveDrawingBuffer: false });
    if (!gl) throw new Error('this browser has no WebGL2');
    this.gl = gl;
    this.canvas = canvas;
    const p = program(gl, VERTEX, FRAGMENT);
    this.program = p;
    this.show = program(gl, SHOW_VERTEX, SHOW_FRAGMENT);
    this.showPicture = gl.getUniformLocation(this.show, 'u_picture');
    this.picture = gl.createTexture();
    this.pictureSize = [0, 0];
    // What draws WebGL: software rasterisers get the CPU's picture.
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    this.device = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    this.software = SOFTWARE.test(this.device);
    // `cpu(view, size, glow)` -> RGBA bytes (bottom row first) or null, and
    // `cpuLooks(palette, scales)`: the engine's CPU drawing, set by the page;
    // `mode` is 'points' or 'cpu'.
    this.cpu = null;
    this.cpuLooks = null;
    this.mode = 'points';
    this.u = {};
    for (const name of ['u_boids', 'u_view', 'u_size', 'u_pixels', 'u_max_point', 'u_palette', 'u_scale', 'u_glow']) {
      this.u[name] = gl.getUniformLocation(p, name);
    }
    this.vao = gl.createVertexArray(); // no attributes: everything comes from the texture
    this.maxPoint = gl.getParameter(gl.ALIASED_POINT_SIZE_RANGE)[1];
    this.texture = gl.createTexture();
    this.rows = 0;
    this.glow = 1.0;
    this.view = null;
    this.zoom = 1;
    this.centre = null;
    this.inset = { right: 0, bottom: 0 };
    this.palette = PALETTE.flat();
    this.scales = new Float32Array(8).fill(1);
  }

  // Each species' colour and body size from its preset's look (`state.species`);
  // species without one take the palette's colour and size 1.
  setLooks(species) {
    this.palette = PALETTE.flat();
    this.scales = new Float32Array(8).fill(1);
    species.slice(0, 8).forEach((s, i) => {
      const look = s.look || {};
      if (look.colour) this.palette.splice(3 * i, 3, ...look.colour);
      if (look.size) this.scales[i] = look.size;
    });
    if (this.cpuLooks) this.cpuLooks(this.palette, this.scales);
  }

  // The CSS colour species `i` is drawn in.
  css(i) {
    const [r, g, b] = this.palette.slice(3 * (i % 8), 3 * (i % 8) + 3);
    return `rgb(${r * 255 | 0}, ${g * 255 | 0}, ${b * 255 | 0})`;
  }

  // Fits the world box [min, max] into the canvas, keeping its aspect, inside
  // the part the panel leaves free (`inset`, CSS pixels on the right and at
  // the bottom); returns the mapping for the overlay (world -> CSS pixels).
  fit(min, max) {
    const { canvas } = this;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    const fw = Math.max(1, w - this.inset.right), fh = Math.max(1, h - this.inset.bottom);
    const sx = max[0] - min[0], sy = max[1] - min[1];
    // Pixels per unit: the whole box at zoom 1; `centre` (world units, null:
    // the box's centre) sits in the middle of the free part.
    const scale = Math.min(fw / sx, fh / sy) * 0.98 * this.zoom;
    const c = this.centre ?? [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2];
    // oy counts up from the canvas's bottom edge (the overlay flips it).
    const ox = fw / 2 - (c[0] - min[0]) * scale, oy = this.inset.bottom + fh / 2 - (c[1] - min[1]) * scale;
    this.view = { min, max, scale, ox, oy, w, h };
    return this.view;
  }

  draw(instances, size) {
    const { gl, view } = this;
    const n = instances.length / INSTANCE_FLOATS;
    gl.viewport(0, 0, view.w, view.h);
    gl.clearColor(0.012, 0.018, 0.045, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.bindVertexArray(this.vao);
    // The CPU's picture, or points where there is none (no flock, a canvas
    // larger than the module draws).
    const shown = this.mode === 'cpu' && this.cpu && this.drawPicture(size);
    if (!shown && n > 0) this.drawPoints(instances, n, size);
    gl.bindVertexArray(null);
  }

  // The boids as point sprites.
  drawPoints(instances, n, size) {
    const { gl, view } = this;
    gl.useProgram(this.program);
    // World -> clip: x_clip = (x - min_x') * 2 / width, with the box centred.
    const minX = view.min[0] - view.ox / view.scale;
    const minY = view.min[1] - view.oy / view.scale;
    gl.uniform4f(this.u.u_view, minX, minY, (2 * view.scale) / view.w, (2 * view.scale) / view.h);
    gl.uniform1f(this.u.u_size, size);
    gl.uniform1f(this.u.u_pixels, view.scale);
    gl.uniform1f(this.u.u_max_point, this.maxPoint);
    gl.uniform1f(this.u.u_glow, this.glow);
    gl.uniform3fv(this.u.u_palette, this.palette);
    gl.uniform1fv(this.u.u_scale, this.scales);
    gl.uniform1i(this.u.u_boids, 0);
    this.upload(instances, n);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE);
    gl.drawArrays(gl.POINTS, 0, n);
    gl.disable(gl.BLEND);
  }

  // The engine's picture of the boids, drawn on the CPU: the part that
  // changed goes up to the texture, and the texture covers the canvas. False
  // when the engine drew none.
  drawPicture(size) {
    const { gl, view } = this;
    const picture = this.cpu(view, size, this.glow);
    if (!picture) return false;
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.picture);
    if (this.pictureSize[0] !== view.w || this.pictureSize[1] !== view.h) {
      // A new size: the engine's picture is new too, so `changed` is all of it.
      this.pictureSize = [view.w, view.h];
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, view.w, view.h, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    }
    const [x, y, w, h] = picture.changed;
    if (w === 0 || h === 0) return true; // nothing drawn now or before: the clear is the picture
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, view.w);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, x, y, w, h, gl.RGBA, gl.UNSIGNED_BYTE, picture.bytes, (y * view.w + x) * 4);
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, 0);
    // Outside the changed part the picture is the background, as cleared.
    gl.enable(gl.SCISSOR_TEST);
    gl.scissor(x, y, w, h);
    gl.useProgram(this.show);
    gl.uniform1i(this.showPicture, 1);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.disable(gl.SCISSOR_TEST);
    return true;
  }

  // Pixels of the frame just drawn brighter than a dim grey (call before the
  // frame is presented), in the whole canvas or in `rect` ([x, y, w, h], CSS
  // pixels from the top left).
  litPixels(rect = null) {
    const { gl, view } = this;
    const [x, y, w, h] = rect
      ? [Math.max(0, rect[0] | 0), Math.max(0, (view.h - rect[1] - rect[3]) | 0), rect[2] | 0, rect[3] | 0]
      : [0, 0, view.w, view.h];
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(x, y, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    return countLit(px);
  }

  // The boids into the texture: whole rows, then the last partial row.
  upload(instances, n) {
    const { gl } = this;
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    const rows = Math.max(1, Math.ceil(n / TEXTURE_WIDTH));
    if (rows > this.rows) {
      this.rows = rows * 2;
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, TEXTURE_WIDTH, this.rows, 0, gl.RGBA, gl.FLOAT, null);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    }
    const full = Math.floor(n / TEXTURE_WIDTH);
    if (full > 0) {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, TEXTURE_WIDTH, full, gl.RGBA, gl.FLOAT,
        instances.subarray(0, full * TEXTURE_WIDTH * INSTANCE_FLOATS));
    }
    const rest = n - full * TEXTURE_WIDTH;
    if (rest > 0) {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, full, rest, 1, gl.RGBA, gl.FLOAT,
        instances.subarray(full * TEXTURE_WIDTH * INSTANCE_FLOATS, n * INSTANCE_FLOATS));
    }
  }
}

