// The cache's entries: one directory each under $CI_ACTIONS_CACHE, named by a hash of its key and
// of path as the workflow writes it (so an entry serves every HOME, as on GitHub), holding the
// key, that hash, and one copy of each path (0, 1, ...). cp -a keeps modes and links.
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = process.env.CI_ACTIONS_CACHE;
if (!root) {
  throw new Error('CI_ACTIONS_CACHE is not set: .ci/run names the directory that keeps the cache');
}

const lines = (s) => (s || '').split('\n').map((l) => l.trim()).filter(Boolean);
const written = lines(process.env.INPUT_PATH);
const paths = written.map((p) => p.replace(/^~(?=$|\/)/, os.homedir()));
const version = crypto.createHash('sha256').update(written.join('\n')).digest('hex');
const dirOf = (k) => path.join(root, crypto.createHash('sha256').update(`${version}\n${k}`).digest('hex').slice(0, 32));
const partial = '.partial-';

// copy copies from (a directory, or a file) to to, replacing to.
function copy(from, to) {
  fs.rmSync(to, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('cp', ['-a', '--', from, to], { stdio: 'inherit' });
}

// entries are the saved entries of these paths, newest first.
function entries() {
  const names = fs.existsSync(root) ? fs.readdirSync(root) : [];
  return names
    .filter((n) => !n.startsWith(partial))
    .map((n) => path.join(root, n))
    .filter((d) => fs.existsSync(path.join(d, 'key')) && fs.readFileSync(path.join(d, 'version'), 'utf8') === version)
    .map((d) => ({ dir: d, key: fs.readFileSync(path.join(d, 'key'), 'utf8'), time: fs.statSync(path.join(d, 'key')).mtimeMs }))
    .sort((a, b) => b.time - a.time);
}

// find is the entry of key, else the newest whose key starts with one of prefixes (in order), or null.
function find(key, prefixes) {
  const all = entries();
  const exact = all.find((e) => e.key === key);
  if (exact) return { ...exact, exact: true };
  for (const prefix of prefixes) {
    const e = all.find((x) => x.key.startsWith(prefix));
    if (e) return { ...e, exact: false };
  }
  return null;
}

// restore copies entry e's paths back where they were.
function restore(e) {
  paths.forEach((p, i) => {
    const saved = path.join(e.dir, String(i));
    if (fs.existsSync(saved)) copy(saved, p);
  });
}

// save saves the paths that exist under key, whole or not at all: into a new directory, renamed
// into place (its key written last, so that a reader never sees an entry without one). It saves
// nothing when none exists, as actions/cache does.
function save(key) {
  const present = paths.filter((p) => fs.existsSync(p));
  if (present.length === 0) return false;
  fs.mkdirSync(root, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(root, partial));
  paths.forEach((p, i) => {
    if (fs.existsSync(p)) copy(p, path.join(tmp, String(i)));
  });
  fs.writeFileSync(path.join(tmp, 'version'), version);
  fs.writeFileSync(path.join(tmp, 'key'), key);
  try {
    fs.renameSync(tmp, dirOf(key));
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
  }
  return true;
}

module.exports = { lines, find, restore, save };
