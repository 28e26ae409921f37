import assert from "node:assert/strict";
import * as nodePath from "node:path";
import fc from "fast-check";
import { posix, win32 } from "../../../core/fs/path.ts";

Deno.test("posix path arithmetic matches node:path", () => {
  const segment = fc.constantFrom("a", "bb", ".", "..", "", "c.d", "x y");
  const path = fc.tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean())
    .map(([abs, parts, trailing]) => (abs ? "/" : "") + parts.join("/") + (trailing ? "/" : ""));
  fc.assert(
    fc.property(path, path, (a, b) => {
      if (a !== "") {
        // dirname and basename are only given normalized paths (the output of join/resolve).
        const n = nodePath.posix.normalize(a);
        assert.equal(posix.dirname(n), nodePath.posix.dirname(n), `dirname(${n})`);
        assert.equal(posix.basename(n), nodePath.posix.basename(n), `basename(${n})`);
        assert.equal(posix.isAbsolute(a), nodePath.posix.isAbsolute(a));
      }
      assert.equal(posix.join(a, b), nodePath.posix.join(a, b), `join(${a}, ${b})`);
      assert.equal(posix.resolve("/base/dir", b), nodePath.posix.resolve("/base/dir", b), `resolve(${b})`);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("win32 path arithmetic matches node:path", () => {
  const segment = fc.constantFrom("a", "bb", ".", "..", "", "c.d");
  const prefix = fc.constantFrom("", "C:\\", "C:/", "\\", "\\\\srv\\share\\");
  const path = fc.tuple(prefix, fc.array(segment, { maxLength: 5 }), fc.constantFrom("\\", "/"))
    .map(([p, parts, sep]) => p + parts.join(sep))
    // Two leading separators only as a real \\server\share prefix (device paths like \\.\ are out of scope).
    .filter((p) => !/^[\\/]{2}/.test(p) || p.startsWith("\\\\srv\\share\\"));
  fc.assert(
    fc.property(path, path, (a, b) => {
      if (a !== "") {
        const n = nodePath.win32.normalize(a);
        assert.equal(win32.dirname(n), nodePath.win32.dirname(n), `dirname(${n})`);
        assert.equal(win32.basename(n), nodePath.win32.basename(n), `basename(${n})`);
        assert.equal(win32.isAbsolute(a), nodePath.win32.isAbsolute(a), `isAbsolute(${a})`);
      }
      // Later parts of a join are relative in all our uses; node's rules for a drive there are its own.
      if (!win32.isAbsolute(b) && !/^[A-Za-z]:/.test(b)) {
        assert.equal(win32.join(a, b), nodePath.win32.join(a, b), `join(${a}, ${b})`);
      }
      if (!/^[\\/]/.test(b)) {
        assert.equal(win32.resolve("C:\\base\\dir", b), nodePath.win32.resolve("C:\\base\\dir", b), `resolve(${b})`);
      }
    }),
    { numRuns: 2000 },
  );
});
