import { describe, expect, it } from 'vitest';
import { uploadedScene } from '../src/lib/scene_upload';

describe('uploaded scenes', () => {
  it('takes one .map, or one .obj with its .mtl files', () => {
    expect(uploadedScene([{ name: 'e1m1.map', text: '{}' }])).toEqual({
      format: 'map',
      name: 'e1m1.map',
      content: '{}',
    });
    expect(
      uploadedScene([
        { name: 'Room.OBJ', text: 'v 0 0 0' },
        { name: 'room.mtl', text: 'newmtl a' },
      ]),
    ).toEqual({ format: 'obj', name: 'Room.OBJ', content: 'v 0 0 0', materials: { 'room.mtl': 'newmtl a' } });
  });
  it('says what is wrong otherwise', () => {
    expect(uploadedScene([])).toBe('pick a .map or .obj file');
    expect(
      uploadedScene([
        { name: 'a.map', text: '' },
        { name: 'b.obj', text: '' },
      ]),
    ).toMatch(/one scene file/);
    expect(
      uploadedScene([
        { name: 'a.map', text: '' },
        { name: 'a.mtl', text: '' },
      ]),
    ).toMatch(/OBJ/);
    expect(uploadedScene([{ name: 'a.png', text: '' }])).toMatch(/^a\.png: only/);
  });
});
