# Blender (Cycles) side of bench/peer_cycles.sh (issue 40, peer check): bakes, into the
# baker's own atlas, what mixforge's lightmap holds, and writes it as a .npy array.
#
#   blender -b --factory-startup --python bench/peer_cycles_bake.py -- \
#       OBJ OUT.npy --samples N --bounces B --seed S [--scale M] [--threads T] [--map MAP]
#
# OBJ is `mixforge bake --obj`'s lightmap.obj: the triangles as the baker traced them (a Quake
# map's after hidden faces are cut away), UVs = the lightmap atlas (v up), materials' Kd/Ke in
# lightmap.mtl, lights as "# mixforge_light" comments in the baker's units (scene.hpp). The
# mesh is built here from those numbers (no importer, so no axis conversion); Blender
# coordinates are Quake units x --scale metres (default 1/32: 32 units to the metre, the
# player's 56 units 1.75 m).
#
# What is baked: type DIFFUSE, pass_filter DIRECT + INDIRECT without COLOR, i.e. the diffuse
# light divided by the albedo: for a Lambertian surface irradiance / pi, which is what the
# lightmap stores (integrator.hpp). Materials are Diffuse BSDF with roughness 0 (Lambert; the
# Principled BSDF's diffuse is Burley, not Lambert) of colour Kd, plus an Emission of Ke.
# Bounces: mixforge's --bounces B (B indirect bounces after the direct light) is Cycles'
# max_bounces = diffuse_bounces = B (0 = direct light only).
# Lights: a mixforge point light of intensity I (W/sr per channel, lightmap units) is a
# Cycles point light of radius 0 and power 4 pi I scale^2 W (Cycles: I = P / (4 pi) W/sr; the
# scale^2 keeps E = I / d^2 the same number when lengths are in metres); a spot light with a
# hard edge (cone_inner == cone_outer) a Cycles spot of size 2 acos(cone_outer), blend 0, the
# same power. Lights with a range, soft-edged spots, suns, sky domes and sky faces have no
# exact Cycles counterpart here: refused, saying which.
# With --map, the delay-2 light entities of the .map are converted here independently
# (I = pi 128 L / wait^2 x colour / 255, ericw's v = L (128 / (wait d))^2 cos over the 128 of a
# full-bright lightmap: quake_scene.hpp) and must equal the OBJ's lights to 1e-6.
import math
import re
import sys
import time

import bpy
import numpy as np


def fail(msg):
    print("peer_cycles_bake: " + msg, file=sys.stderr)
    sys.exit(2)


def arguments():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) < 2:
        fail("usage: -- OBJ OUT.npy --samples N --bounces B --seed S [--scale M] [--threads T] [--map MAP]")
    opts = {"obj": argv[0], "out": argv[1], "samples": 256, "bounces": 2, "seed": 1, "scale": 1 / 32,
            "threads": 2, "map": None}
    i = 2
    while i < len(argv):
        key = argv[i].lstrip("-")
        if key not in opts or i + 1 >= len(argv):
            fail("unknown or incomplete option " + argv[i])
        kind = type(opts[key]) if opts[key] is not None else str
        opts[key] = kind(argv[i + 1])
        i += 2
    return opts


def read_obj(path):
    verts, uvs, faces, face_mat, face_group, lights = [], [], [], [], [], []
    mtllib, material, group = None, None, None
    with open(path) as f:
        for line in f:
            if line.startswith("# mixforge_light "):
                t = line.split()
                light = {"kind": t[2]}
                for k in range(3, len(t)):
                    if t[k] in ("position", "direction", "intensity"):
                        light[t[k]] = tuple(float(x) for x in t[k + 1:k + 4])
                    elif t[k] == "cone":
                        light["cone"] = (float(t[k + 1]), float(t[k + 2]))
                    elif t[k] == "range":
                        light["range"] = float(t[k + 1])
                lights.append(light)
                continue
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            if t[0] == "v":
                verts.append(tuple(float(x) for x in t[1:4]))
            elif t[0] == "vt":
                uvs.append((float(t[1]), float(t[2])))
            elif t[0] == "f":
                corners = [c.split("/") for c in t[1:]]
                faces.append(([int(c[0]) - 1 for c in corners], [int(c[1]) - 1 for c in corners]))
                face_mat.append(material)
                face_group.append(group)
            elif t[0] == "usemtl":
                material = t[1]
            elif t[0] == "g":
                group = t[1]
            elif t[0] == "mtllib":
                mtllib = t[1]
    return verts, uvs, faces, face_mat, face_group, lights, mtllib


def read_mtl(path):
    mats, name = {}, None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "newmtl":
                name = t[1]
                mats[name] = {"Kd": (0.5, 0.5, 0.5), "Ke": (0, 0, 0), "sky": False, "two_sided": False}
            elif t[0] in ("Kd", "Ke"):
                mats[name][t[0]] = tuple(float(x) for x in t[1:4])
            elif t[0] == "mixforge_two_sided":
                mats[name]["two_sided"] = t[1] == "1"
            elif line.startswith("# mixforge_sky 1"):
                mats[name]["sky"] = True
    return mats


def map_lights(path):
    """Delay-2 point lights of a Quake .map, converted independently of mixforge."""
    text = open(path).read()
    text = re.sub(r"//[^\n]*", "", text)
    out = []
    for body in re.findall(r"\{([^{}]*)\}", text):
        kv = {}
        for k, v in re.findall(r'"([^"]*)"\s+"([^"]*)"', body):
            kv[k.lstrip("_")] = v
        if not kv.get("classname", "").startswith("light"):
            continue
        if kv.get("delay", "0") != "2":
            fail(path + ": a light that is not delay 2 (inverse square) has no exact peer; this bench takes delay 2 only")
        light = float(kv.get("light", "300").split()[-1])
        wait = float(kv.get("wait", "1"))
        wait = 1 if wait <= 0 else wait
        color = [float(x) for x in kv.get("color", "255 255 255").split()]
        if all(0 <= c <= 1 for c in color):
            color = [c * 255 for c in color]
        origin = tuple(float(x) for x in kv.get("origin", "0 0 0").split())
        i = math.pi * 128 * light / (wait * wait)
        out.append({"position": origin, "intensity": tuple(i * c / 255 for c in color)})
    return out


def main():
    o = arguments()
    verts, uvs, faces, face_mat, face_group, lights, mtllib = read_obj(o["obj"])
    mats = read_mtl(o["obj"].rsplit("/", 1)[0] + "/" + mtllib if "/" in o["obj"] else mtllib)
    header = open(o["obj"]).readline()
    m = re.search(r"\((\d+) x (\d+) texels", header)
    if not m:
        fail(o["obj"] + " is not a mixforge bake --obj file (no atlas size in its first line)")
    width, height = int(m.group(1)), int(m.group(2))
    for name, mat in mats.items():
        if mat["sky"]:
            fail("material " + name + " is a sky window: no exact Cycles counterpart in this bench")
    for light in lights:
        if light["kind"] not in ("point", "spot"):
            fail("a " + light["kind"] + " light: this bench takes point lights and hard-edged spots only")
        if light.get("range", 0) > 0:
            fail("a light with a range (a Quake delay 0/1/3 light approximated by mixforge): no Cycles counterpart")
        if light["kind"] == "spot" and light["cone"][0] != light["cone"][1]:
            fail("a spot light with a soft edge: Cycles' blend is a smoothstep, mixforge's a linear ramp")
    if o["map"]:
        mine = map_lights(o["map"])
        if len(mine) != len(lights):
            fail("the .map has %d lights, the OBJ %d" % (len(mine), len(lights)))
        for a, b in zip(mine, lights):
            for x, y in zip(a["position"] + a["intensity"], b["position"] + b["intensity"]):
                if abs(x - y) > 1e-6 * max(1, abs(x)):
                    fail("light conversion differs: this script %s, mixforge %s" % (a, b))
        print("peer_cycles_bake: %d delay-2 lights converted from the .map equal mixforge's" % len(mine))

    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    cy = sc.cycles
    cy.device = "CPU"
    cy.samples = o["samples"]
    cy.seed = o["seed"]
    cy.use_denoising = False  # Debian's Blender has no OpenImageDenoise: with it on, a bake is black
    cy.use_adaptive_sampling = False
    cy.max_bounces = o["bounces"]
    cy.diffuse_bounces = o["bounces"]
    cy.glossy_bounces = cy.transmission_bounces = cy.volume_bounces = cy.transparent_max_bounces = 0
    cy.min_light_bounces = 0
    cy.light_sampling_threshold = 0.0  # no probabilistic cut of weak light samples
    cy.sample_clamp_direct = cy.sample_clamp_indirect = 0.0
    cy.caustics_reflective = cy.caustics_refractive = False
    sc.render.threads_mode = "FIXED"
    sc.render.threads = o["threads"]
    world = bpy.data.worlds.new("black")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs[1].default_value = 0.0
    sc.world = world
    s = o["scale"]

    me = bpy.data.meshes.new("baked")
    me.from_pydata([(x * s, y * s, z * s) for x, y, z in verts], [], [f[0] for f in faces])
    uv = me.uv_layers.new(name="lightmap")
    for poly, (_, tv) in zip(me.polygons, faces):
        for li, t in zip(poly.loop_indices, tv):
            uv.data[li].uv = uvs[t]
    image = bpy.data.images.new("cycles", width, height, float_buffer=True, alpha=False)
    names = sorted(set(face_mat))
    for name in names:
        mat = mats[name]
        bm = bpy.data.materials.new(name)
        bm.use_nodes = True
        nt = bm.node_tree
        for n in list(nt.nodes):
            nt.nodes.remove(n)
        diffuse = nt.nodes.new("ShaderNodeBsdfDiffuse")
        diffuse.inputs["Color"].default_value = (*mat["Kd"], 1)
        diffuse.inputs["Roughness"].default_value = 0.0
        out = nt.nodes.new("ShaderNodeOutputMaterial")
        shader = diffuse.outputs[0]
        if any(mat["Ke"]):
            emit = nt.nodes.new("ShaderNodeEmission")
            emit.inputs["Color"].default_value = (*mat["Ke"], 1)
            emit.inputs["Strength"].default_value = 1.0
            add = nt.nodes.new("ShaderNodeAddShader")
            nt.links.new(diffuse.outputs[0], add.inputs[0])
            nt.links.new(emit.outputs[0], add.inputs[1])
            shader = add.outputs[0]
        nt.links.new(shader, out.inputs["Surface"])
        tex = nt.nodes.new("ShaderNodeTexImage")
        tex.image = image
        nt.nodes.active = tex
        me.materials.append(bm)
    index = {name: i for i, name in enumerate(names)}
    for poly, name in zip(me.polygons, face_mat):
        poly.material_index = index[name]
    me.update()
    ob = bpy.data.objects.new("baked", me)
    sc.collection.objects.link(ob)

    for k, light in enumerate(lights):
        inten = light["intensity"]
        peak = max(inten)
        if peak <= 0:
            continue
        ld = bpy.data.lights.new("light%d" % k, "POINT" if light["kind"] == "point" else "SPOT")
        ld.energy = 4 * math.pi * peak * s * s
        ld.color = tuple(c / peak for c in inten)
        ld.shadow_soft_size = 0.0
        ld.cycles.cast_shadow = True
        lo = bpy.data.objects.new("light%d" % k, ld)
        lo.location = tuple(c * s for c in light["position"])
        if light["kind"] == "spot":
            ld.spot_size = 2 * math.acos(light["cone"][1])
            ld.spot_blend = 0.0
            d = light["direction"]
            lo.rotation_mode = "QUATERNION"
            from mathutils import Vector
            lo.rotation_quaternion = Vector((-d[0], -d[1], -d[2])).to_track_quat("Z", "Y")
        sc.collection.objects.link(lo)
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    sc.collection.objects.link(cam)
    sc.camera = cam
    bpy.context.view_layer.update()
    bpy.context.view_layer.objects.active = ob
    ob.select_set(True)

    t0 = time.time()
    bpy.ops.object.bake(type="DIFFUSE", pass_filter={"DIRECT", "INDIRECT"}, margin=0, use_clear=True)
    seconds = time.time() - t0
    px = np.array(image.pixels[:], dtype=np.float32).reshape(height, width, 4)[::-1, :, :].copy()
    # Which texels Cycles' bake covers (its rasteriser's rule for a texel centre exactly on an
    # edge is not the comparison's): a 1-sample POSITION bake into a cleared image, nonzero where
    # covered (a texel centre never lies exactly at the origin). Saved as the 4th channel.
    # (NORMAL clears to the neutral normal; UV and EMIT came back all 0 in Blender 3.4.)
    cy.samples = 1
    image.generated_color = (0, 0, 0, 0)
    image.pixels[:] = [0.0] * (width * height * 4)
    bpy.ops.object.bake(type="POSITION", margin=0, use_clear=True)
    normal = np.array(image.pixels[:], dtype=np.float32).reshape(height, width, 4)[::-1, :, :3]
    px[:, :, 3] = (np.abs(normal).sum(axis=-1) > 0).astype(np.float32)
    np.save(o["out"], px)  # row 0 = the atlas's top row, as lightmap.exr; RGB + Cycles' coverage
    print("peer_cycles_bake: %d triangles, %d lights, atlas %d x %d, %d samples, %d bounces, seed %d, "
          "scale %g m/unit: %.1f s" % (len(faces), len(lights), width, height, o["samples"], o["bounces"],
                                       o["seed"], s, seconds))


try:
    main()
except SystemExit:
    raise
except Exception as e:  # a Python error in Blender would otherwise end with exit code 0
    import traceback
    traceback.print_exc()
    sys.exit(1)
