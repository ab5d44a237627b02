/* The live card table: one websocket to /ws/{table}; the server sends what this seat may see, we draw it
   and send the moves clicked.  The seat's token is kept in localStorage, so a reload (or coming back later
   while the server runs) sits you at your seat again. */
(function () {
  "use strict";
  var T = window.ATOUT_TABLE;
  var C = window.AtoutCards;
  var KEY = "atout-token-" + T.id;
  var token = null;
  try { token = localStorage.getItem(KEY); } catch (e) { token = null; }
  var seat = -1, last = null, ws = null, sent = false, closedByUs = false;
  var root = document.getElementById("table");
  var log = document.getElementById("log");
  var notice = document.getElementById("notice");
  var sitBox = document.getElementById("sit");
  var noticeTimer = null;

  function say(text, kind) {
    notice.textContent = text;
    notice.className = "notice show " + (kind || "");
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(function () { notice.className = "notice"; }, kind === "error" ? 6000 : 3000);
  }

  function send(msg) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
  }

  function move(action) {
    if (sent || !last) return;
    sent = true;
    root.classList.add("sending");
    send({type: "move", action: action, step: last.step});
  }

  function waiting(m) {
    if (m.error) return m.error;
    if (m.waiting_for === null || m.waiting_for === undefined || m.waiting_for === seat) return "";
    var s = m.seats[m.waiting_for];
    if (!s.taken) return "waiting for someone to take seat " + m.waiting_for + ": share this page's address";
    return "waiting for " + (s.name || "seat " + m.waiting_for);
  }

  function render() {
    if (!last) return;
    C.renderTable(root, last.view, {me: seat, legal: last.legal, seats: last.seats, lastTrick: last.last_trick,
                                    onMove: seat >= 0 ? move : null, waiting: waiting(last)});
    root.classList.remove("sending");
    sent = false;
    var free = [];
    last.seats.forEach(function (s, p) { if (s.kind === "person" && !s.taken) free.push(p); });
    sitBox.hidden = !(seat < 0 && free.length);
    var buttons = document.getElementById("sit-seats");
    if (buttons.dataset.free !== free.join(",")) {    // rebuilt only when the free seats change: a click on a
      buttons.dataset.free = free.join(",");         // button replaced by the next state would be lost
      buttons.textContent = "";
      free.forEach(function (p) {
        var b = C.el("button", "primary sit-seat", "Sit at seat " + p);
        b.type = "button";
        b.dataset.seat = p;
        b.addEventListener("click", function () {
          send({type: "sit", seat: p, name: document.getElementById("sit-name").value});
        });
        buttons.appendChild(b);
      });
    }
    document.getElementById("leave").hidden = seat < 0;
    document.getElementById("typed").hidden = !(seat >= 0 && last.legal.length);
    document.getElementById("record-link").hidden = !(last.view.terminal || last.error);
    document.title = (last.view.to_act === seat && seat >= 0 ? "● " : "") + last.view.title + " · Atout";
  }

  function addEvents(events) {
    events.forEach(function (e) {
      var prev = log.lastElementChild;
      if (e.kind === "draw" && prev && prev.dataset.kind === "draw" && prev.dataset.seat === String(e.seat)) {
        var n = parseInt(prev.dataset.n, 10) + 1;       // several draws of one seat: one line
        prev.dataset.n = n;
        prev.dataset.step = e.step;
        if (e.card) prev.textContent += " " + e.card.text;
        else prev.textContent = prev.textContent.replace(/ draws .*/, " draws " + n + " cards");
        return;
      }
      var li = C.el("li", "ev ev-" + e.kind, e.text);
      li.dataset.kind = e.kind;
      li.dataset.seat = e.seat === undefined ? "" : String(e.seat);
      li.dataset.n = 1;
      li.dataset.step = e.step;
      log.appendChild(li);
    });
    while (log.children.length > 200) log.removeChild(log.firstChild);
    if (events.length) log.scrollTop = log.scrollHeight;
  }

  function connect() {
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/" + encodeURIComponent(T.id);
    if (token) url += "?token=" + encodeURIComponent(token);
    ws = new WebSocket(url);
    ws.onmessage = function (ev) {
      var m = JSON.parse(ev.data);
      if (m.type === "hello") {
        seat = m.seat;
        if (seat < 0 && token) { try { localStorage.removeItem(KEY); } catch (e) { /* ignore */ } token = null; }
      } else if (m.type === "seated") {
        seat = m.seat;
        token = m.token;
        try { localStorage.setItem(KEY, token); } catch (e) { /* private mode: the seat lasts the page */ }
        say("you sit at seat " + seat);
      } else if (m.type === "state") {
        if (m.full) log.textContent = "";
        last = m;
        addEvents(m.events);
        render();
      } else if (m.type === "refused") {
        sent = false;
        root.classList.remove("sending");
        say("refused: " + m.reason, "error");
      }
    };
    ws.onclose = function () {
      if (closedByUs) return;
      say("the connection was lost: reconnecting…", "error");
      setTimeout(connect, 1500);
    };
  }

  document.getElementById("share").addEventListener("click", function () {
    var link = location.origin + "/t/" + T.id;
    if (navigator.clipboard) navigator.clipboard.writeText(link).then(function () { say("link copied: " + link); },
      function () { say(link); });
    else say(link);
  });
  document.getElementById("typed").addEventListener("submit", function (e) {
    e.preventDefault();
    var input = document.getElementById("typed-move");
    if (!input.value.trim() || !last) return;
    send({type: "move", text: input.value, step: last.step});
    input.value = "";
  });
  document.getElementById("leave").addEventListener("click", function () {
    send({type: "leave"});
    seat = -1;
    try { localStorage.removeItem(KEY); } catch (e) { /* ignore */ }
    token = null;
    say("you left the seat: someone else may take it (the match waits there)");
  });
  window.addEventListener("beforeunload", function () { closedByUs = true; });
  window.AtoutTable = {state: function () { return last; }, seat: function () { return seat; }};
  connect();
})();
