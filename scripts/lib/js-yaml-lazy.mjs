// Build-time stand-in for `js-yaml` in our own code (scripts/lib/lazy-deps.mjs resolves imports here):
// js-yaml builds its schemas at its top level (~5 ms), which every command paid though most runs read and write
// no YAML (the example snapshot is JSON). The real module is loaded on first call.
let real;
const get = () => (real ??= require('js-yaml-eager'));
export const load = (...args) => get().load(...args);
export const loadAll = (...args) => get().loadAll(...args);
export const dump = (...args) => get().dump(...args);
