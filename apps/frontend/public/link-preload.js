// A link to a workflow (#/workflows/<id>): its answer is requested now, while the editor's scripts
// load, as index.html does for the catalogue and the list; the editor's own fetch of it takes this
// answer (same address: the id as the editor encodes it). A link to a run opens through the run instead.
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
