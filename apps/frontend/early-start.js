// What the page starts while the editor's scripts download (a classic script: it runs before them).

// A link to a workflow (#/workflows/<id>): its answer is requested now, as index.html does for the catalogue and
// the list; the editor's own fetch of it takes this answer (same address: the id as the editor encodes it). A link
// to a run opens through the run instead. First: the request goes out before the wait on localStorage below.
(() => {
  const match = /^#\/workflows\/([^/?]+)\/?(?:\?.*)?$/.exec(location.hash);
  if (!match) return;
  let id;
  try {
    id = decodeURIComponent(match[1]);
  } catch {
    return;
  }
  const link = document.createElement("link");
  link.rel = "preload";
  link.as = "fetch";
  link.crossOrigin = "anonymous";
  link.href = `/api/workflows/${encodeURIComponent(id)}`;
  document.head.append(link);
})();

// localStorage opens on its first use, a wait on the browser (~10-60 ms in a new profile, 300 ms seen on a busy
// machine) that fell inside the editor's start (its modules read stored choices as they load); touched here, it
// opens while the scripts download.
try {
  void globalThis.localStorage?.length;
} catch {
  // Storage refused (private mode, a policy): the editor reads through readLocal, which copes.
}
