/* A counterexample of atout verify, step by step on the card table (full information: every hand shown). */
(function () {
  "use strict";
  var T = window.ATOUT_TRACE;
  var C = window.AtoutCards;
  var root = document.getElementById("table");
  var slider = document.getElementById("slider");
  var where = document.getElementById("where");
  var text = document.getElementById("step-text");
  var data = null, k = 0;

  function inCycle(i) {
    return data.kind === "lasso" && data.cycle_start !== null && i > data.cycle_start &&
      i <= data.cycle_start + data.cycle_length;
  }

  function show(i) {
    k = Math.max(0, Math.min(i, data.frames.length - 1));
    var f = data.frames[k];
    C.renderTable(root, f.view, {me: null});
    slider.value = k;
    where.textContent = "step " + k + " / " + (data.frames.length - 1) + (inCycle(k) ? " · in the cycle" : "");
    var who = f.player === null ? "" : (f.player < 0 ? "chance: " : "seat " + f.player + ": ");
    text.textContent = k === 0 ? "the start of the match" : "step " + k + ": " + who + f.text;
    text.className = "step-text" + (inCycle(k) ? " cycle" : "");
    if (k === data.frames.length - 1 && data.error) text.textContent += " · " + data.error;
    history.replaceState(null, "", "#" + k);
  }

  fetch("/api/games/" + encodeURIComponent(T.game) + "/trace/" + T.k)
    .then(function (r) { if (!r.ok) throw new Error("no such counterexample (run the verifier on the game page)"); return r.json(); })
    .then(function (d) {
      data = d;
      document.getElementById("trace-title").textContent = "Counterexample: " + d.name;
      var note = d.kind === "lasso" ? "a lasso: after step " + d.cycle_start + ", steps " + (d.cycle_start + 1) + "-" +
        (d.cycle_start + d.cycle_length) + " repeat for ever. " : "";
      document.getElementById("trace-note").textContent = note + (d.note || "");
      slider.max = d.frames.length - 1;
      var start = parseInt(location.hash.slice(1), 10);
      show(isNaN(start) ? 0 : start);
    })
    .catch(function (e) { text.textContent = e.message; });

  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("prev").onclick = function () { show(k - 1); };
  document.getElementById("next").onclick = function () { show(k + 1); };
  document.getElementById("last").onclick = function () { show(data.frames.length - 1); };
  slider.oninput = function () { show(parseInt(slider.value, 10)); };
  document.addEventListener("keydown", function (e) {
    if (!data) return;
    if (e.key === "ArrowRight") show(k + 1);
    else if (e.key === "ArrowLeft") show(k - 1);
  });
})();
