// The page a signed approval link opens (POST /api/approvals/:id/link → pageUrl). The token is after `#`, so it never
// reaches a server log or a mail scanner's request; opening the page decides nothing — only a button does.
(() => {
  const token = decodeURIComponent(location.hash.slice(1));
  const $ = (id) => document.getElementById(id);
  const say = (text) => {
    $("status").textContent = text;
  };
  const post = async (path, body) => {
    const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(answer?.error?.message ?? `The server answered ${res.status}.`);
    return answer;
  };
  const show = (view) => {
    $("question").textContent = view.question;
    $("workflow").textContent = view.workflowId;
    $("run").textContent = view.runId;
    $("data").textContent = typeof view.data === "string" ? view.data : JSON.stringify(view.data, null, 2);
    $("review").hidden = false;
    if (view.status !== "pending") {
      for (const b of document.querySelectorAll("#decide button, #decide textarea")) b.disabled = true;
      say(view.status === "decided" ? `Already decided: ${view.decision}.` : "This approval is closed (its run was cancelled).");
    } else say("Review the request below, then approve or reject it. The link works once.");
  };
  if (!token) {
    say("This page needs the whole link, including the part after #. Open the link from the message again.");
    return;
  }
  post("/api/approval-links/view", { token }).then(show, (error) => say(error.message));
  $("decide").addEventListener("submit", (event) => {
    event.preventDefault();
    const decision = event.submitter?.value;
    if (decision !== "approved" && decision !== "rejected") return;
    const comment = $("comment").value.trim();
    for (const b of document.querySelectorAll("#decide button")) b.disabled = true;
    say("Sending…");
    post("/api/approval-links/decision", { token, decision, ...(comment ? { comment } : {}) }).then(
      (done) => say(`Done: ${done.decision}. The run goes on from here; you can close this page.`),
      (error) => {
        say(error.message);
        for (const b of document.querySelectorAll("#decide button")) b.disabled = false;
      },
    );
  });
})();
