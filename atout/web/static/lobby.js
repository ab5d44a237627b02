/* The first page: open a table, list the tables, resume a match from its record. */
(function () {
  "use strict";
  var games = window.ATOUT_GAMES, kinds = window.ATOUT_KINDS;
  var byKey = {};
  games.forEach(function (g) { byKey[g.key] = g; });
  var gameSel = document.getElementById("game");
  var seatsBox = document.getElementById("seats");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function drawSeats() {
    var g = byKey[gameSel.value];
    seatsBox.textContent = "";
    for (var p = 0; p < g.players; p++) {
      var lab = el("label", "seat-choice", "seat " + p + " ");
      var sel = el("select");
      sel.name = "seat" + p;
      sel.dataset.seat = p;
      kinds.forEach(function (k) {
        var o = el("option", "", k === "person" ? "a person" : k + " bot");
        o.value = k;
        sel.appendChild(o);
      });
      sel.value = p === 0 ? "person" : (g.players === 2 ? "ismcts" : "greedy");
      lab.appendChild(sel);
      var side = (g.sides || []).findIndex(function (s) { return s.indexOf(p) >= 0; });
      if (side >= 0) lab.appendChild(el("span", "hint", " side " + side));
      seatsBox.appendChild(lab);
    }
  }

  function options(text) {
    var out = {};
    text.split(/[,\s]+/).forEach(function (item) {
      if (!item) return;
      var i = item.indexOf("=");
      if (i < 0) throw new Error("write each option as NAME=VALUE, not '" + item + "'");
      out[item.slice(0, i)] = item.slice(i + 1);
    });
    return out;
  }

  function open(body, errBox) {
    errBox.textContent = "";
    return fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (j) { return [r.ok, j]; }); })
      .then(function (res) {
        if (!res[0]) { errBox.textContent = res[1].error; return; }
        location.href = res[1].url;
      })
      .catch(function (e) { errBox.textContent = String(e); });
  }

  document.getElementById("new-table").addEventListener("submit", function (e) {
    e.preventDefault();
    var err = document.getElementById("new-error");
    var seats = Array.prototype.map.call(seatsBox.querySelectorAll("select"), function (s) { return s.value; });
    var opts;
    try { opts = options(document.getElementById("options").value); } catch (x) { err.textContent = x.message; return; }
    open({game: gameSel.value, seats: seats, options: opts}, err);
  });

  document.getElementById("record-file").addEventListener("change", function (e) {
    var f = e.target.files[0];
    if (!f) return;
    var err = document.getElementById("resume-error");
    f.text().then(function (text) { open({record: text}, err); });
  });

  function listTables() {
    fetch("/api/tables").then(function (r) { return r.json(); }).then(function (tables) {
      var ul = document.getElementById("tables");
      ul.textContent = "";
      if (!tables.length) ul.appendChild(el("li", "hint", "none yet"));
      tables.forEach(function (t) {
        var li = el("li");
        var a = el("a", "", t.title);
        a.href = t.url;
        li.appendChild(a);
        var free = t.seats.filter(function (s) { return s.kind === "person" && !s.taken; }).length;
        li.appendChild(el("span", "hint", " · " + t.seats.map(function (s) { return s.kind === "person" ?
          (s.taken ? s.name || "a person" : "free seat") : s.kind; }).join(", ") + " · step " + t.step +
          (t.terminal ? " · over" : free ? " · " + free + " free" : "")));
        ul.appendChild(li);
      });
    });
  }

  var asked = new URLSearchParams(location.search).get("game");
  if (asked && byKey[asked]) gameSel.value = asked;
  gameSel.addEventListener("change", drawSeats);
  drawSeats();
  listTables();
  setInterval(listTables, 5000);
})();
