// A scene a user uploads from the Bakes page: files picked in the browser -> the bake
// request's `scene` object (schema/bake_request.schema.json).
import type { Schemas } from '../api/client';

export interface SceneFile {
  name: string;
  text: string;
}
export type UploadedScene = Exclude<Schemas['bake_request']['scene'], string | undefined>;

// Files a user picked -> the request's uploaded scene: one .map or one .obj, plus the .mtl
// files an OBJ names (sent by name, as its mtllib lines use them). A string: what is wrong.
export function uploadedScene(files: SceneFile[]): UploadedScene | string {
  const ext = (n: string) => n.toLowerCase().slice(n.lastIndexOf('.') + 1);
  const scenes = files.filter((f) => ext(f.name) === 'map' || ext(f.name) === 'obj');
  const mtls = files.filter((f) => ext(f.name) === 'mtl');
  const other = files.filter((f) => !scenes.includes(f) && !mtls.includes(f));
  if (other.length) return `${other[0].name}: only .map, .obj and .mtl files can be baked`;
  if (scenes.length !== 1)
    return scenes.length ? 'pick one scene file (.map or .obj), not several' : 'pick a .map or .obj file';
  const scene = scenes[0];
  const format = ext(scene.name) as 'map' | 'obj';
  if (mtls.length && format === 'map') return '.mtl files go with an OBJ scene, not a .map';
  const out: UploadedScene = { format, name: scene.name.slice(0, 100), content: scene.text };
  if (mtls.length) out.materials = Object.fromEntries(mtls.map((m) => [m.name, m.text]));
  return out;
}
