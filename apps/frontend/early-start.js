// What the page starts while the editor's scripts download (a classic script: it runs before them).

// The answers the editor opens with: the catalogue and the list (index.html preloads both; these fetches take the
// preloaded answers) and a link's workflow (#/workflows/<id>, the id as the editor encodes it; a link to a run opens
// through the run instead). Each is read and parsed here, while the main thread waits for the scripts to download
// and compile, and kept by its path: the editor's first call of it takes the parsed answer (src/shared/api/
// early-answers.ts) instead of fetching, reading and parsing it after its mount, a few tasks and a frame later.
// Only a 200's JSON is kept; anything else (undefined) the editor asks again, as it would have.
(() => {
  const answers = {};
  const ask = (path) => {
    answers[path] = fetch(path, { headers: { accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : undefined))
      .catch(() => undefined);
  };
  ask("/api/nodes");
  ask("/api/workflows");
  const match = /^#\/workflows\/([^/?]+)\/?(?:\?.*)?$/.exec(location.hash);
  if (match) {
    try {
      ask(`/api/workflows/${encodeURIComponent(decodeURIComponent(match[1]))}`);
    } catch {
      // Not a valid encoding: the editor shows the link's error itself.
    }
  }
  globalThis.weftEarlyAnswers = answers;
})();

// localStorage opens on its first use, a wait on the browser (~10-60 ms in a new profile, 300 ms seen on a busy
// machine) that fell inside the editor's start (its modules read stored choices as they load); touched here, it
// opens while the scripts download.
try {
  void globalThis.localStorage?.length;
} catch {
  // Storage refused (private mode, a policy): the editor reads through readLocal, which copes.
}
