/**
 * Path arithmetic for the kernel's hot path. `node:path` would do, but importing any `node:`
 * module boots Deno's Node compatibility layer, which costs ~5 ms per isolate — twice per
 * `pterm exec` (kernel and sandbox worker). Both flavours are exported so the Windows rules
 * are tested on every platform.
 */

export interface PathFlavour {
  readonly sep: string;
  isAbsolute(path: string): boolean;
  /** Joins segments and normalizes `.`, `..` and repeated separators. */
  join(...parts: string[]): string;
  /** Resolves against `base` (absolute) unless `path` is already absolute. */
  resolve(base: string, path: string): string;
  dirname(path: string): string;
  basename(path: string): string;
}

/** What POSIX normalization changes: a `.` or `..` segment, or a repeated separator. */
const NOT_NORMAL_POSIX = /(?:^|\/)\.\.?(?:\/|$)|\/\//;

function makeFlavour(windows: boolean): PathFlavour {
  const sep = windows ? "\\" : "/";
  const isSep = windows ? (c: string) => c === "/" || c === "\\" : (c: string) => c === "/";
  const splitter = windows ? /[\\/]+/ : /\/+/;

  /** The root part of a path: "/" (POSIX), "C:\", "\\server\share\" or "\" (Windows), else "". */
  const rootOf = (path: string): string => {
    if (!windows) return path.startsWith("/") ? "/" : "";
    const unc = /^[\\/]{2}([^\\/]+)[\\/]+([^\\/]+)/.exec(path);
    if (unc) return `\\\\${unc[1]}\\${unc[2]}\\`;
    const drive = /^([A-Za-z]:)([\\/]?)/.exec(path);
    if (drive) return drive[2] ? `${drive[1]}\\` : drive[1];
    return path.length > 0 && isSep(path[0]) ? "\\" : "";
  };
  const rawRootLength = (path: string): number => {
    if (!windows) return path.startsWith("/") ? 1 : 0;
    const unc = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+[\\/]?/.exec(path);
    if (unc) return unc[0].length;
    const drive = /^[A-Za-z]:[\\/]?/.exec(path);
    if (drive) return drive[0].length;
    return path.length > 0 && isSep(path[0]) ? 1 : 0;
  };

  const normalize = (path: string): string => {
    // Most paths are already normal (no `.` or `..` segment, no repeated separator): kept as they are.
    if (!windows && path.length > 0 && !NOT_NORMAL_POSIX.test(path)) return path;
    const root = rootOf(path);
    const absolute = root.length > 0 && (isSep(root[root.length - 1]) || root.startsWith("\\\\"));
    const out: string[] = [];
    for (const segment of path.slice(rawRootLength(path)).split(splitter)) {
      if (segment === "" || segment === ".") continue;
      if (segment === "..") {
        if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
        else if (!absolute) out.push("..");
        continue;
      }
      out.push(segment);
    }
    let body = out.join(sep);
    // Like node:path, a trailing separator (meaning "a folder") is kept.
    if (body && path.length > 0 && isSep(path[path.length - 1])) body += sep;
    if (root) return root + body || root;
    return body || (path.length > 0 && isSep(path[path.length - 1]) ? `.${sep}` : ".");
  };

  const isAbsolute = (path: string): boolean => {
    if (!windows) return path.startsWith("/");
    return /^[A-Za-z]:[\\/]/.test(path) || /^[\\/]{2}/.test(path) || (path.length > 0 && isSep(path[0]));
  };

  const dirname = (path: string): string => {
    const rootLength = rawRootLength(path);
    let end = path.length;
    while (end > rootLength && isSep(path[end - 1])) end--;
    while (end > rootLength && !isSep(path[end - 1])) end--;
    while (end > rootLength && isSep(path[end - 1])) end--;
    if (end <= rootLength) return rootLength > 0 ? normalize(path.slice(0, rootLength)) : ".";
    return path.slice(0, end);
  };

  const basename = (path: string): string => {
    // Only a drive letter is never part of a name; a UNC share's name is (node:path agrees).
    const floor = windows && /^[A-Za-z]:/.test(path) ? 2 : 0;
    let end = path.length;
    while (end > floor && isSep(path[end - 1])) end--;
    let start = end;
    while (start > floor && !isSep(path[start - 1])) start--;
    return path.slice(start, end);
  };

  return {
    sep,
    isAbsolute,
    join: (...parts) => {
      const present = parts.filter((p) => p !== "");
      let joined = present.join(sep);
      // Only a first part that itself starts with two separators names a UNC share.
      if (windows && present.length > 0 && !/^[\\/]{2}/.test(present[0])) joined = joined.replace(/^[\\/]+/, sep);
      return normalize(joined);
    },
    resolve: (base, path) => {
      const full = normalize(isAbsolute(path) ? path : `${base}${sep}${path}`);
      // Like node:path, resolve never ends in a separator, except for a root.
      const root = rootOf(full);
      return full.length > root.length && isSep(full[full.length - 1]) ? full.slice(0, -1) : full;
    },
    dirname,
    basename,
  };
}

export const posix: PathFlavour = makeFlavour(false);
export const win32: PathFlavour = makeFlavour(true);

const native = Deno.build.os === "windows" ? win32 : posix;

/** The local path of a `file:` URL (`/C:/x` becomes `C:\\x` on Windows). */
export function fromFileUrl(url: string | URL): string {
  const parsed = new URL(url);
  if (parsed.protocol !== "file:") throw new TypeError(`not a file URL: ${parsed.href}`);
  const path = decodeURIComponent(parsed.pathname);
  if (Deno.build.os !== "windows") return path;
  const local = path.replace(/^\/([A-Za-z]:)/, "$1").replaceAll("/", "\\");
  return parsed.hostname ? `\\\\${parsed.hostname}${local}` : local;
}

export const sep = native.sep;
export const isAbsolute = native.isAbsolute;
export const join = native.join;
export const resolve = native.resolve;
export const dirname = native.dirname;
export const basename = native.basename;
