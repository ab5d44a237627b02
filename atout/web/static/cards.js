/* The card table, drawn from a seat view (engine/seat_view.py): shared by the live table and the replays.
   Plain JavaScript, no library.  Every text from the server goes in with textContent (never as HTML). */
(function () {
  "use strict";
  var SYMBOLS = {spades: "♠", hearts: "♥", diamonds: "♦", clubs: "♣"};
  var RED = {hearts: true, diamonds: true};
  var POSITIONS = {2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"]};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function cardEl(c, extra) {
    var d = el("div", "card" + (RED[c.suit] ? " red" : "") + (extra ? " " + extra : ""));
    d.dataset.card = c.card;
    d.title = c.text;
    d.setAttribute("aria-label", c.text);
    d.setAttribute("role", "img");
    d.appendChild(el("span", "rank", c.rank));
    d.appendChild(el("span", "suit", SYMBOLS[c.suit] || c.suit));
    return d;
  }

  function backs(n, label) {
    var pile = el("div", "backs");
    var shown = Math.min(n, 8);
    for (var i = 0; i < shown; i++) pile.appendChild(el("div", "card back"));
    pile.appendChild(el("span", "count", label));
    pile.setAttribute("aria-label", label);
    return pile;
  }

  function who(p, me) { return p === me ? "you" : "seat " + p; }

  function position(p, me, n) {
    var base = me !== null && me >= 0 ? me : 0;
    var r = (p - base + n) % n;
    return (POSITIONS[n] || [])[r] || "ring";
  }

  function seatTitle(p, me, seats) {
    var t = who(p, me);
    var s = seats && seats[p];
    if (s) {
      if (s.kind !== "person") t += " · " + s.kind + " bot";
      else if (s.name && p !== me) t += " · " + s.name;
      else if (!s.taken) t += " · free seat";
    }
    return t;
  }

  /* Draw ``view`` into ``root``.  opts: me (the seat, -1 onlooker, null full view), legal (moves), seats,
     lastTrick, onMove(action) (cards and buttons are clickable only with it), waiting (a sentence). */
  function renderTable(root, view, opts) {
    opts = opts || {};
    var me = opts.me === undefined ? null : opts.me;
    var n = view.players;
    root.textContent = "";
    var grid = el("div", "grid p" + n);
    root.appendChild(grid);

    // -- the scoreboard
    var board = el("div", "scoreboard");
    var head = el("div", "status" + (view.to_act !== null && view.to_act === me ? " mine" : ""));
    var status = view.status;
    if (view.for_dummy !== null && view.for_dummy !== undefined) status += " (for " + who(view.for_dummy, me) + ", the dummy)";
    head.textContent = status;
    board.appendChild(head);
    var facts = el("div", "facts");
    facts.appendChild(el("span", "deal", "deal " + view.deal));
    facts.appendChild(el("span", "dealer", "dealer: " + who(view.dealer, me)));
    if (view.phase) facts.appendChild(el("span", "phase", view.phase));
    if (view.trump) {
      var tr = el("span", "trumps" + (RED[view.trump.suit] ? " red" : ""), "trumps " + (view.trump.symbol || view.trump.suit));
      tr.title = "trumps: " + view.trump.suit;
      facts.appendChild(tr);
    }
    board.appendChild(facts);
    var scores = el("div", "scores");
    view.scores.forEach(function (s) {
      var line = el("div", "score");
      line.appendChild(el("span", "name", s.name));
      s.entries.forEach(function (e) {
        var x = el("span", "entry", e.label + " " + e.value);
        line.appendChild(x);
      });
      scores.appendChild(line);
    });
    board.appendChild(scores);
    if (view.partnerships) board.appendChild(el("div", "partners", view.partnerships));
    if (view.variables.length) {
      var vars = el("div", "vars");
      view.variables.forEach(function (v) { vars.appendChild(el("span", "var", v.text)); });
      board.appendChild(vars);
    }
    if (opts.waiting) board.appendChild(el("div", "waiting", opts.waiting));
    grid.appendChild(board);

    // -- the seats, each with the zones it owns
    for (var p = 0; p < n; p++) {
      var pos = position(p, me, n);
      var seat = el("section", "seat pos-" + pos + (view.to_act === p ? " to-act" : "") + (p === me ? " me" : ""));
      seat.dataset.seat = p;
      var title = el("h3", "seat-name", seatTitle(p, me, opts.seats));
      if (view.dealer === p) title.appendChild(el("span", "badge dealer-badge", "dealer"));
      if (view.to_act === p) title.appendChild(el("span", "badge turn-badge", "to act"));
      seat.appendChild(title);
      if (view.tricks_won) seat.appendChild(el("div", "tricks-won", "tricks " + view.tricks_won[p]));
      view.zones.forEach(function (z) {
        if (z.owner !== p || z.name === "taken") return;
        var box = el("div", "zone zone-" + z.name + (z.name === "hand" ? " hand" : ""));
        box.dataset.zone = z.slot;
        if (z.name !== "hand") box.appendChild(el("div", "zone-label", z.label));
        if (z.visible) {
          var row = el("div", "cards");
          z.cards.forEach(function (c) { row.appendChild(cardEl(c)); });
          if (!z.cards.length) row.appendChild(el("span", "empty", "no card"));
          box.appendChild(row);
        } else {
          box.appendChild(backs(z.size, z.size + " card" + (z.size === 1 ? "" : "s")));
        }
        seat.appendChild(box);
      });
      grid.appendChild(seat);
    }

    // -- the middle: the trick, the public zones, the face-down piles
    var center = el("section", "center");
    var trick = el("div", "trick");
    trick.id = "trick";
    var played = view.trick, caption = "";
    if (!played.length && opts.lastTrick && opts.lastTrick.cards) {
      played = opts.lastTrick.cards;
      caption = "last trick" + (opts.lastTrick.winner !== null && opts.lastTrick.winner !== undefined ?
        ": " + (opts.lastTrick.winner === me ? "you take it" : "seat " + opts.lastTrick.winner + " takes it") : "");
      trick.classList.add("last");
    } else if (played.length) {
      caption = "trick " + view.trick_number;
    }
    played.forEach(function (c) {
      var slot = el("div", "played tpos-" + position(c.seat, me, n));
      slot.appendChild(cardEl(c));
      slot.appendChild(el("span", "by", who(c.seat, me)));
      trick.appendChild(slot);
    });
    if (caption) trick.appendChild(el("div", "trick-caption", caption));
    center.appendChild(trick);
    var common = el("div", "common");
    view.zones.forEach(function (z) {
      if (z.owner !== null && z.owner !== undefined) return;
      var box = el("div", "zone zone-" + z.name);
      box.dataset.zone = z.slot;
      box.appendChild(el("div", "zone-label", z.name));
      if (z.visible) {
        var row = el("div", "cards");
        z.cards.forEach(function (c) { row.appendChild(cardEl(c)); });
        if (!z.cards.length) row.appendChild(el("span", "empty", "empty"));
        box.appendChild(row);
      } else {
        if (!z.size) return;
        box.appendChild(backs(Math.min(z.size, 3), z.size + " face down"));
      }
      common.appendChild(box);
    });
    center.appendChild(common);
    grid.appendChild(center);

    // -- the moves
    var moves = el("section", "moves");
    moves.id = "moves";
    var legal = opts.legal || [];
    var onMove = opts.onMove;
    legal.forEach(function (m) {
      var target = null;
      if (m.card) target = grid.querySelector('.seat .card[data-card="' + m.card.card + '"]');
      if (target && onMove) {
        target.classList.add("playable");
        target.tabIndex = 0;
        target.setAttribute("role", "button");
        target.setAttribute("aria-label", m.label);
        target.title = m.label;
        target.addEventListener("click", function () { onMove(m.action); });
        target.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onMove(m.action); }
        });
      } else if (onMove) {
        var b = el("button", "move", m.label);
        b.type = "button";
        b.dataset.action = m.action;
        b.addEventListener("click", function () { onMove(m.action); });
        moves.appendChild(b);
      }
    });
    if (legal.length && onMove) {
      grid.classList.add("my-turn");
      if (legal.some(function (m) { return m.card; })) {
        grid.querySelectorAll(".seat.me .card:not(.playable)").forEach(function (c) { c.classList.add("dim"); });
      }
    }
    grid.appendChild(moves);

    if (view.terminal) {
      var end = el("section", "end");
      end.appendChild(el("h2", "", view.outcome ? view.outcome : "match over"));
      end.appendChild(el("p", "", "returns: " + view.returns.map(function (r, i) { return who(i, me) + " " + r; }).join(", ")));
      grid.appendChild(end);
    }
  }

  window.AtoutCards = {renderTable: renderTable, cardEl: cardEl, el: el};
})();
