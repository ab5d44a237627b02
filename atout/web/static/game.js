/* The game page: the verdicts of atout verify (run in the background on the server, cached). */
(function () {
  "use strict";
  var G = window.ATOUT_GAME;
  var url = "/api/games/" + encodeURIComponent(G.key) + "/verdicts";
  var stateBox = document.getElementById("verdict-state");
  var run = document.getElementById("run-verify");
  var table = document.getElementById("verdicts");
  var ces = document.getElementById("counterexamples");
  var timer = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function show(s) {
    clearTimeout(timer);
    run.hidden = !(s.state === "not yet run" || s.state === "failed");
    if (s.state === "not yet run") stateBox.textContent = "not yet run";
    else if (s.state === "queued") stateBox.textContent = "queued: another game is being verified";
    else if (s.state === "running") stateBox.textContent = "running (" + s.seconds + " s so far; Écarté takes seconds, the big games minutes)";
    else if (s.state === "failed") stateBox.textContent = "failed: " + s.error;
    if (s.state === "queued" || s.state === "running") timer = setTimeout(poll, 2000);
    if (s.state !== "done") return;
    stateBox.textContent = "verified in " + s.seconds + " s (exit status " + s.exit_status + ")";
    var tbody = table.querySelector("tbody");
    tbody.textContent = "";
    var byName = {};
    s.counterexamples.forEach(function (c) { byName[c.name] = c; });
    s.properties.forEach(function (p) {
      var tr = el("tr", "v-" + p.verdict);
      var name = el("td", "", p.name);
      var ce = byName[p.name];
      if (ce) {
        name.appendChild(document.createElement("br"));
        var link = el("a", "replay", "replay it (" + ce.steps + " steps)");
        link.href = "/g/" + encodeURIComponent(G.key) + "/trace/" + ce.id;
        name.appendChild(link);
      }
      tr.appendChild(name);
      tr.appendChild(el("td", "verdict", p.verdict));
      tr.appendChild(el("td", "how", p.method));
      tbody.appendChild(tr);
    });
    table.hidden = false;
    ces.textContent = "";
    if (s.findings.length) {
      ces.appendChild(el("h3", "", "Findings"));
      var fl = el("ul");
      s.findings.forEach(function (f) { fl.appendChild(el("li", "", f.kind + ": " + f.message)); });
      ces.appendChild(fl);
    }
    if (s.counterexamples.length) {
      ces.appendChild(el("h3", "", "Counterexamples, replayed on the card table"));
      var ul = el("ul", "ce-list");
      s.counterexamples.forEach(function (c) {
        var li = el("li");
        var a = el("a", "", c.name + " (" + c.kind + ", " + c.steps + " steps)");
        a.href = "/g/" + encodeURIComponent(G.key) + "/trace/" + c.id;
        li.appendChild(a);
        if (c.note) li.appendChild(el("span", "hint", " " + c.note));
        ul.appendChild(li);
      });
      ces.appendChild(ul);
    }
  }

  function poll() { fetch(url).then(function (r) { return r.json(); }).then(show); }
  run.addEventListener("click", function () {
    fetch(url, {method: "POST"}).then(function (r) { return r.json(); }).then(show);
  });
  poll();
})();
