# Comparison step of bench/peer_cycles.sh (issue 40, peer check), run in Blender's Python (it
# reads OpenEXR through bpy; numpy for the rest):
#
#   blender -b --factory-startup --python bench/peer_cycles_compare.py -- \
#       NAME OBJ OUT.csv N MIXFORGE_1.exr .. MIXFORGE_N.exr CYCLES_1.npy .. CYCLES_N.npy
#
# Both lightmaps lie in the same atlas (mixforge's, whose UVs the OBJ carries). The texels
# compared are those whose centre lies on a triangle of the OBJ (edges included) and that
# Cycles' bake covers as well (the .npy's 4th channel: its rasteriser leaves out a texel whose
# centre lies exactly on some edges; counted and left out). mixforge covers every texel whose
# centre lies within half a texel diagonal of its chart (atlas.cpp), so it covers all these. Each is classed by the distance from its centre to the edge of its chart (a
# brush face's visible part: with the hidden faces cut away, those edges are where faces and
# touching brushes meet):
#   edge      < 1 texel: the texel straddles the edge. mixforge samples one point inside the
#             face (the centre, kept 16 ray offsets inside the triangle); Cycles spreads its
#             samples over the texel's footprint, so these differ by the irradiance's change
#             across a texel: not quite a like-for-like pair
#   seam      1 to 4 texels from the edge
#   interior  4 texels or more
# For each class: the mean over the class of both renderers (the channel sum, averaged over
# the N seeds), the relative difference d = mean(Cycles) / mean(mixforge) - 1, and its noise:
# each renderer's seed-to-seed standard deviation of the class mean (over its N seeds, one
# seed's), combined for the N-seed means as sqrt(s_mixforge^2 / N + s_cycles^2 / N). Per
# texel: the rms of (Cycles - mixforge) / mixforge over the class against the rms that the
# seeds' spread gives for noise alone (equal: the texels differ by noise only). Texels darker
# than 1e-3 of the brightest are left out of the relative figures (a dark room is 0 in both;
# the header line gives their means).
import math
import sys

import bpy
import numpy as np


def read_exr(path):
    img = bpy.data.images.load(path)
    img.colorspace_settings.name = "Non-Color"
    w, h = img.size
    px = np.array(img.pixels[:], dtype=np.float64).reshape(h, w, 4)[::-1, :, :3]
    bpy.data.images.remove(img)
    return px


def read_obj(path):
    verts, uvs, tris, groups, mats = [], [], [], [], []
    group, mat = None, None
    for line in open(path):
        t = line.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] == "v":
            verts.append([float(x) for x in t[1:4]])
        elif t[0] == "vt":
            uvs.append([float(x) for x in t[1:3]])
        elif t[0] == "g":
            group = t[1]
        elif t[0] == "usemtl":
            mat = t[1]
        elif t[0] == "f":
            c = [x.split("/") for x in t[1:]]
            tris.append(([int(x[0]) - 1 for x in c], [int(x[1]) - 1 for x in c]))
            groups.append(group)
            mats.append(mat)
    return np.array(verts), np.array(uvs), tris, groups, mats


def seg_dist(px, py, a, b):
    """Distance from points (px, py) to segment ab."""
    ab = b - a
    L2 = float(ab @ ab)
    t = np.clip(((px - a[0]) * ab[0] + (py - a[1]) * ab[1]) / L2, 0, 1) if L2 > 0 else 0 * px
    dx, dy = px - (a[0] + t * ab[0]), py - (a[1] + t * ab[1])
    return np.sqrt(dx * dx + dy * dy)


def coverage(obj, width, height):
    verts, uvs, tris, groups, mats = obj
    gid = -np.ones((height, width), dtype=np.int64)
    dist = np.full((height, width), np.inf)
    pos = np.zeros((height, width, 3))
    names = sorted(set(groups))
    gindex = {g: i for i, g in enumerate(names)}
    by_group = {}
    for k, g in enumerate(groups):
        by_group.setdefault(g, []).append(k)
    info = []
    for g in names:
        ks = by_group[g]
        edges = {}
        for k in ks:
            tv = tris[k][1]
            for e in range(3):
                a, b = tuple(np.round(uvs[tv[e]], 7)), tuple(np.round(uvs[tv[(e + 1) % 3]], 7))
                key = (a, b) if a < b else (b, a)
                edges[key] = edges.get(key, 0) + 1
        boundary = [(np.array([a[0] * width, (1 - a[1]) * height]), np.array([b[0] * width, (1 - b[1]) * height]))
                    for (a, b), n in edges.items() if n == 1]
        normal = None
        for k in ks:
            P = verts[tris[k][0]]
            T = np.array([[uvs[i][0] * width, (1 - uvs[i][1]) * height] for i in tris[k][1]])
            n = np.cross(P[1] - P[0], P[2] - P[0])
            if normal is None and np.linalg.norm(n) > 0:
                normal = n / np.linalg.norm(n)
            x0, x1 = int(max(0, math.floor(T[:, 0].min()))), int(min(width - 1, math.ceil(T[:, 0].max())))
            y0, y1 = int(max(0, math.floor(T[:, 1].min()))), int(min(height - 1, math.ceil(T[:, 1].max())))
            ys, xs = np.mgrid[y0:y1 + 1, x0:x1 + 1]
            cx, cy = xs + 0.5, ys + 0.5
            d = (T[1, 0] - T[0, 0]) * (T[2, 1] - T[0, 1]) - (T[2, 0] - T[0, 0]) * (T[1, 1] - T[0, 1])
            if d == 0:
                continue
            l1 = ((cx - T[0, 0]) * (T[2, 1] - T[0, 1]) - (T[2, 0] - T[0, 0]) * (cy - T[0, 1])) / d
            l2 = ((T[1, 0] - T[0, 0]) * (cy - T[0, 1]) - (cx - T[0, 0]) * (T[1, 1] - T[0, 1])) / d
            inside = (l1 >= -1e-9) & (l2 >= -1e-9) & (l1 + l2 <= 1 + 1e-9)
            yy, xx = ys[inside], xs[inside]
            gid[yy, xx] = gindex[g]
            w1, w2 = l1[inside], l2[inside]
            pos[yy, xx] = P[0] + w1[:, None] * (P[1] - P[0]) + w2[:, None] * (P[2] - P[0])
        yy, xx = np.nonzero(gid == gindex[g])
        dd = np.full(len(yy), np.inf)
        for a, b in boundary:
            dd = np.minimum(dd, seg_dist(xx + 0.5, yy + 0.5, a, b))
        dist[yy, xx] = dd
        info.append({"group": g, "material": mats[ks[0]], "normal": normal, "texels": len(yy)})
    return gid, dist, pos, info


def stats(sel, M, C):
    """M, C: lists of per-seed lightmaps (H, W, 3), one per seed."""
    m = np.array([X[sel].sum(axis=-1) for X in M])  # seeds x texels
    c = np.array([X[sel].sum(axis=-1) for X in C])
    n = m.shape[1]
    if n == 0:
        return None
    mm, cm = m.mean(), c.mean()
    out = {"texels": n, "mixforge": mm / 3, "cycles": cm / 3}
    if mm <= 0:
        return out
    # One seed's standard deviation of the class mean, from the seeds' class means.
    sM = m.mean(axis=1).std(ddof=1) / mm
    sC = c.mean(axis=1).std(ddof=1) / max(cm, 1e-300)
    out.update({"d": cm / mm - 1, "sigma": math.sqrt(sM * sM / len(M) + sC * sC / len(C)), "sigma_mixforge": sM,
                "sigma_cycles": sC})
    Mt, Ct = m.mean(axis=0), c.mean(axis=0)
    lit = Mt > 0
    if lit.sum() > 0:
        rel = (Ct[lit] - Mt[lit]) / Mt[lit]
        noise = (m[:, lit].var(axis=0, ddof=1) / len(M) + c[:, lit].var(axis=0, ddof=1) / len(C)) / Mt[lit] ** 2
        out["texel_rms"] = float(np.sqrt(np.mean(rel * rel)))
        out["texel_noise_rms"] = float(np.sqrt(np.mean(noise)))
    return out


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    name, objp, csvp, seeds = argv[0], argv[1], argv[2], int(argv[3])
    exrs, npys = argv[4:4 + seeds], argv[4 + seeds:4 + 2 * seeds]
    if seeds < 2 or len(npys) != seeds:
        raise SystemExit("peer_cycles_compare: give N >= 2 seeds' lightmaps and Cycles bakes")
    M = [read_exr(e) for e in exrs]
    raw = [np.load(x).astype(np.float64) for x in npys]
    C = [r[:, :, :3] for r in raw]
    cycles_covered = np.all([r[:, :, 3] > 0 for r in raw], axis=0)
    height, width = M[0].shape[:2]
    if C[0].shape != M[0].shape:
        raise SystemExit("peer_cycles_compare: the Cycles bake is %s, the lightmap %s" % (C[0].shape, M[0].shape))
    texel = float(open(objp).readline().split(" texels of ")[1].split()[0])
    gid, dist, pos, info = coverage(read_obj(objp), width, height)
    on_triangle = gid >= 0
    covered = on_triangle & cycles_covered
    ties = int((on_triangle & ~cycles_covered).sum())
    bright = sum(M).sum(axis=-1) / len(M)
    dark = bright < 1e-3 * bright[covered].max()
    Md, Cd = sum(M) / len(M), sum(C) / len(C)
    classes = [("all", covered), ("edge (< 1 texel)", covered & (dist < 1)),
               ("seam (1-4 texels)", covered & (dist >= 1) & (dist < 4)), ("interior (>= 4 texels)", covered & (dist >= 4))]
    rows = []
    print("\n%s: %d texels of %g units compared, on %d faces (%d seeds each); %d more texels whose centre lies exactly on "
          "a triangle's edge are left out (Cycles' bake leaves them out); texels darker than 1e-3 of "
          "the brightest: %d (means over them: mixforge %.3g, Cycles %.3g)"
          % (name, covered.sum(), texel, len(info), len(M), ties, (covered & dark).sum(),
             Md[covered & dark].mean() if (covered & dark).any() else 0, Cd[covered & dark].mean() if (covered & dark).any() else 0))
    print("| class | texels | mixforge mean | Cycles mean | d = Cycles/mixforge - 1 | noise of d (1 sigma) | one mixforge seed | one Cycles seed | per-texel rms diff / noise rms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, sel in classes:
        s = stats(sel & ~dark, M, C)
        if not s or "d" not in s:
            continue
        print("| %s | %d | %.5g | %.5g | %+.3f %% | %.3f %% | %.3f %% | %.3f %% | %.4f / %.4f |" % (
            label, s["texels"], s["mixforge"], s["cycles"], 100 * s["d"], 100 * s["sigma"], 100 * s["sigma_mixforge"],
            100 * s["sigma_cycles"], s.get("texel_rms", float("nan")), s.get("texel_noise_rms", float("nan"))))
        rows.append((name, label, "", "", s))
    print("\nPer face (faces with 200 texels or more; interior and seam classes):")
    print("| face | material | normal | texels | mixforge interior | d interior | d seam | d edge |")
    print("|---|---|---|---|---|---|---|---|")
    for i, f in enumerate(info):
        if f["texels"] < 200:
            continue
        mine = covered & (gid == i)
        cells = []
        for label, sel in classes[1:]:
            s = stats(mine & sel & ~dark, M, C)
            cells.append(s)
            if s:
                rows.append((name, label, f["group"], f["material"], s))
        inner = cells[2]
        fmt = lambda s: ("%+.2f %% +- %.2f" % (100 * s["d"], 100 * s["sigma"])) if s and "d" in s else ("dark" if s else "-")
        nrm = " ".join("%g" % round(x, 3) for x in f["normal"])
        print("| %s | %s | %s | %d | %s | %s | %s | %s |" % (
            f["group"], f["material"], nrm, f["texels"], ("%.4g" % inner["mixforge"]) if inner else "-",
            fmt(cells[2]), fmt(cells[1]), fmt(cells[0])))
    with open(csvp, "w") as out:
        out.write("scene,class,face,material,texels,mixforge_mean,cycles_mean,d,sigma,sigma_mixforge,sigma_cycles,texel_rms,texel_noise_rms\n")
        for scene, label, face, mat, s in rows:
            out.write("%s,%s,%s,%s,%d,%.6g,%.6g,%s,%s,%s,%s,%s,%s\n" % (
                scene, label, face, mat, s["texels"], s["mixforge"], s["cycles"],
                *("%.6g" % s[k] if k in s else "" for k in ("d", "sigma", "sigma_mixforge", "sigma_cycles", "texel_rms", "texel_noise_rms"))))


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)
