// The painter of borders_sim/game/drawing/paint.py (and the shapes of svg.py) in JavaScript:
// makePainter(tables)(scene) is the very string paint(scene) gives in Python, byte for byte, so
// a replay page (borders_sim/arena/viewer) ships each step's scene and paints it in the browser.
// The two are kept equal by tests/test_paint_js.py (every picture of recorded games, in headless
// Chromium). It follows paint.py function by function: a change there is made here too.
// Python's ways are spelled out where JavaScript's differ: truth of an empty dict or list
// (truth), str() of None (str), repr() of a string (repr), round() to one decimal, ties to
// even (num), len() and slices counted in code points.
"use strict";

function makePainter(tables) {  // tables: borders_sim.game.drawing.paint.painter_tables()
  // --- svg.py ---------------------------------------------------------------------------------
  const FONT = tables.font;

  function str(v) {  // Python's str() of a value of a scene
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    return String(v);
  }
  function truth(v) {  // Python's truth: an empty string, list or dict is false
    if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
    if (Array.isArray(v)) return v.length > 0;
    if (typeof v === "object") return Object.keys(v).length > 0;
    return true;
  }
  function repr(s) {  // Python's repr() of a string
    const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
    let out = "";
    for (const c of s) {
      if (c === "\\" || c === quote) out += "\\" + c;
      else if (c === "\n") out += "\\n";
      else if (c === "\r") out += "\\r";
      else if (c === "\t") out += "\\t";
      else if (c < " " || c === "\x7f") out += "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0");
      else out += c;
    }
    return quote + out + quote;
  }
  const length = (s) => [...s].length;  // len(): code points

  function esc(value) {
    return str(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }
  function num(x) {  // round(x, 1) of the exact binary value, ties to even; "12" for 12.0
    if (Number.isInteger(x)) return String(x === 0 ? 0 : x);
    const exact = Math.abs(x).toFixed(100);  // every digit of the double
    const dot = exact.indexOf(".");
    let whole = BigInt(exact.slice(0, dot)) * 10n + BigInt(exact[dot + 1]);
    const rest = exact.slice(dot + 2).replace(/0+$/, "");
    if (rest > "5" || (rest === "5" && whole % 2n === 1n)) whole += 1n;
    const tenth = whole % 10n, units = whole / 10n;
    const sign = x < 0 && whole !== 0n ? "-" : "";
    return tenth === 0n ? sign + units : sign + units + "." + tenth;
  }
  const textWidth = (s, size, bold = false) => length(s) * size * (bold ? 0.66 : 0.6);
  const title = (label) => truth(label) ? "<title>" + esc(label) + "</title>" : "";

  function rect(x, y, w, h, fill, stroke = null, strokeWidth = 1, rx = 0, label = null,
                dash = false) {
    let attrs = `x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}"`
      + (rx ? ` rx="${num(rx)}"` : "") + ` fill="${fill}"`;
    if (stroke) {
      attrs += ` stroke="${stroke}" stroke-width="${num(strokeWidth)}"`;
      if (dash) attrs += ' stroke-dasharray="4 3"';
    }
    return truth(label) ? `<rect ${attrs}>${title(label)}</rect>` : `<rect ${attrs}/>`;
  }
  function circle(cx, cy, r, fill, stroke = null, label = null) {
    let attrs = `cx="${num(cx)}" cy="${num(cy)}" r="${num(r)}" fill="${fill}"`;
    if (stroke) attrs += ` stroke="${stroke}"`;
    return truth(label) ? `<circle ${attrs}>${title(label)}</circle>` : `<circle ${attrs}/>`;
  }
  function text(x, y, s, size = 12, fill = "#222", bold = false, anchor = "start",
                italic = false) {
    let attrs = `x="${num(x)}" y="${num(y)}" font-size="${num(size)}" fill="${fill}"`;
    if (bold) attrs += ' font-weight="bold"';
    if (italic) attrs += ' font-style="italic"';
    if (anchor !== "start") attrs += ` text-anchor="${anchor}"`;
    return `<text ${attrs}>${esc(s)}</text>`;
  }
  const group = (children, label = null) => "<g>" + title(label) + children.join("") + "</g>";
  function svgDocument(width, height, label, description, body) {
    const head = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" `
      + `viewBox="0 0 ${width} ${height}" role="img" font-family="${FONT}">`;
    return [head, `<title>${esc(label)}</title>`, `<desc>${esc(description)}</desc>`, ...body,
            "</svg>\n"].join("");
  }

  // --- paint.py -------------------------------------------------------------------------------
  const WIDTH = 1440, HEADER = 92, MARGIN = 16, ROWS_W = 1000;
  const PANEL_X = MARGIN + ROWS_W + 16, PANEL_W = WIDTH - PANEL_X - MARGIN;
  const CARD = new Map(tables.card_keys.map((k, t) => [k, t]));
  const MAIN = new Map(tables.main_names.map((k, m) => [k, m]));
  const CLASS_COLOURS = [["#dcedc8", "#558b2f", "#1b5e20"], ["#ffcdd2", "#c62828", "#7f0000"],
                         ["#ffe082", "#c79100", "#5d4000"], ["#e1bee7", "#7b1fa2", "#4a0072"]];
  const HIDDEN = ["#455a64", "#263238", "#ffffff"];
  const MAIN_COLOURS = ["#fff3e0", "#ef6c00", "#6d3300"];
  const INSPECTOR_BG = "#e3f2fd", INSPECTOR = "#1565c0", TO_MOVE = "#ef6c00", LAST = "#fff176";
  const RED = "#c62828", GREEN = "#2e7d32", GREY = "#616161";
  const STATUS_COLOURS = {undecided: "#9e9e9e", committed: "#6a1b9a", passed: GREEN,
                          opened: RED, holding: "#f9a825"};
  const BORDER_CHECK_PHASES = tables.border_check_phases;
  const CHIP_H = 18, CHIP_FONT = 11, GAP = 4;
  const floorDiv = (a, b) => Math.floor(a / b);

  function canvasSize(n) {
    const need = HEADER + 2 * MARGIN + 96 * n;
    return [WIDTH, Math.max(720, -floorDiv(-need, 16) * 16)];
  }
  const chip = (label, colours, tip, count = 1, dashed = false) =>
    ({label, colours, tip, count, dashed});
  const chipW = (c) => textWidth(c.label, CHIP_FONT) + 10;
  function drawChip(c, x, y) {
    const [fill, stroke, ink] = c.colours;
    const w = chipW(c);
    return group([rect(x, y, w, CHIP_H, fill, stroke, 1, 4, null, c.dashed),
                  text(x + 5, y + 13, c.label, CHIP_FONT, ink)], c.tip);
  }
  function cardChips(counts, tip = "", dashed = false) {
    const out = [];
    for (const key of Object.keys(counts).sort((a, b) => CARD.get(a) - CARD.get(b))) {
      const k = counts[key], t = CARD.get(key);
      const cls = tables.card_class[t];
      const facts = cls < 3 ? `${tables.class_names[cls]}, value ${tables.card_value[t]}, `
        + `fine ${tables.card_fine[t]}` : "action card";
      out.push(chip(key + (k > 1 ? ` ×${k}` : ""), CLASS_COLOURS[cls],
                    `${tip}${k} × ${tables.card_names[t]} (${facts})`, k, dashed));
    }
    return out;
  }
  const hiddenChip = (k, what) => k > 0 ? [chip(`${k} hidden`, HIDDEN, `${k} ${what}`, k)] : [];
  function mainChips(names, points = false) {
    return names.map((m) => {
      const value = tables.main_points[MAIN.get(m)];
      return chip(points ? `${m} ${value}` : m, MAIN_COLOURS, `main resource ${m}, ${value} points`);
    });
  }
  function flow(chips, x, y, width, lines) {
    const placed = [];
    let cx = x, line = 0;
    for (const c of chips) {
      const w = chipW(c);
      if (cx > x && cx + w > x + width) { line += 1; cx = x; }
      if (line >= lines) break;
      placed.push([c, cx, line]);
      cx += w + GAP;
    }
    const rest = chips.slice(placed.length);
    let more = null;
    while (rest.length) {
      more = chip(`+${rest.reduce((a, c) => a + c.count, 0)}`, ["#ffffff", "#9e9e9e", "#424242"],
                  "and " + rest.map((c) => c.tip).join(", "));
      if (!placed.length) break;
      const [c, px] = placed[placed.length - 1];
      if (px + chipW(c) + GAP + chipW(more) <= x + width) break;
      rest.unshift(placed.pop()[0]);
    }
    const out = placed.map(([c, px, l]) => drawChip(c, px, y + l * (CHIP_H + GAP)));
    if (more !== null) {
      if (placed.length) {
        const [c, px, l] = placed[placed.length - 1];
        out.push(drawChip(more, px + chipW(c) + GAP, y + l * (CHIP_H + GAP)));
      } else {
        out.push(drawChip(more, x, y));
      }
    }
    return out;
  }
  function tag(x, y, label, fill, tip, ink = "#ffffff") {
    const w = textWidth(label, 11, true) + 12;
    return group([rect(x, y, w, 18, fill, null, 1, 9),
                  text(x + w / 2, y + 13, label, 11, ink, true, "middle")], tip);
  }
  const countsText = (counts) =>
    Object.entries(counts).map(([key, k]) => `${k} ${key}`).join(", ") || "nothing";

  function crateVerdict(seat) {
    const said = seat.announced;
    if (said === null) return null;
    const shown = seat.seen_this_round, hidden = seat.hidden_this_round;
    if (truth(seat.crate)) {
      const wrong = Object.keys(seat.crate).filter((k) => k !== said).sort(pySort);
      if (wrong.length) return ["LIE", RED, `announced ${said}, the crate holds ${wrong.join(", ")} too`];
      return ["TRUE", GREEN, `the crate holds only ${said}, as announced`];
    }
    if (!truth(shown) && !truth(hidden)) return null;
    const banned = Object.keys(shown).filter((k) => tables.card_class[CARD.get(k)] > 0);
    if (banned.length) return ["CAUGHT", RED, `announced ${said}; opened, it showed ${banned.join(", ")}`];
    const wrong = Object.keys(shown).filter((k) => k !== said);
    if (wrong.length) return ["LIED", RED, `announced ${said}, the crate showed ${wrong.join(", ")}`];
    if (truth(hidden)) return [`${hidden} UNSEEN`, GREY, `${hidden} cards of the crate stayed hidden`];
    return ["TRUE", GREEN, `the crate showed only ${said}, as announced`];
  }
  function pySort(a, b) {  // sorted() of strings: by code point
    const x = [...a].map((c) => c.codePointAt(0)), y = [...b].map((c) => c.codePointAt(0));
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  }

  function headline(scene) {
    if (scene.phase === "game over") {
      const won = scene.winners;
      return `Game over after round ${scene.round}` + (truth(won)
        ? `: ${won.join(" and ")} ${won.length > 1 ? "win" : "wins"}` : "");
    }
    return `Round ${scene.round} · ${scene.phase} · ${str(scene.to_move)} to move`;
  }
  function header(scene) {
    const n = scene.num_players;
    const inspectors = Object.entries(scene.inspectors)
      .map(([b, s]) => `inspector ${b}: ${str(s)}`).join(", ");
    const whose = truth(scene.viewer) ? `the view of ${scene.viewer}: only what ${scene.viewer} knows`
      : "the whole table: every card face up";
    const sub = `BORDERS, ${n} players · round ${scene.round_in_cycle} of a `
      + `${scene.cycle_length}-round cycle · ${inspectors} · ${whose}`;
    const out = [rect(0, 0, WIDTH, HEADER, "#263238"),
                 text(MARGIN, 38, headline(scene), 26, "#ffffff", true),
                 text(MARGIN, 64, sub, 13, "#cfd8dc")];
    const last = scene.last_action;
    if (truth(last)) {
      const label = `Last move: ${last.seat} · ${last.action}`;
      const w = Math.max(360.0, textWidth(label, 16, true) + 24);
      const x = WIDTH - MARGIN - w;
      out.push(group([rect(x, 14, w, 36, LAST, "#f9a825", 2, 6),
                      text(x + 12, 38, label, 16, "#212121", true)],
                     `the last move: ${last.seat} chose ${repr(last.action)}`));
    }
    return out.concat(legend());
  }
  function legend() {
    const chips = [0, 1, 2, 3].map((c) => chip(tables.class_names[c], CLASS_COLOURS[c],
                                               `${tables.class_names[c]} cards`))
      .concat([chip("hidden", HIDDEN, "face-down cards")]);
    let sum = 0;
    for (const c of chips) sum += chipW(c) + GAP;
    const lx = WIDTH - MARGIN - sum - 56;
    return [text(lx, 77, "cards:", 11, "#cfd8dc"), ...flow(chips, lx + 40, 64, WIDTH, 1)];
  }

  function recordLines(seat, inspector) {
    const h = seat.history, lines = [];
    if (h.crates) {
      lines.push([`crates ${h.crates} · opened ${h.crates_opened}`, GREY,
                  `${h.crates} crates sent, ${h.crates_opened} of them opened`]);
    }
    if (h.lies_caught) {
      lines.push([`caught lying ${h.lies_caught}×`, RED, `caught lying ${h.lies_caught} times`]);
    } else if (inspector || h.crates_inspected) {
      lines.push([`inspected ${h.crates_inspected} · opened ${h.opens}`, GREY,
                  `as an inspector: ${h.crates_inspected} crates handled, ${h.opens} opened`]);
    }
    return lines.slice(0, 2);
  }
  function badgeOf(scene, name) {
    const found = Object.entries(scene.inspectors).find(([_b, s]) => s === name);
    return found ? found[0] : null;
  }
  function seatRow(scene, seat, y, h) {
    const name = seat.seat, bc = scene.border_check;
    const x = MARGIN;
    const badge = badgeOf(scene, name), moving = scene.to_move === name;
    const last = truth(scene.last_action) && scene.last_action.seat === name;
    const you = name === scene.viewer;
    const out = [rect(x, y, ROWS_W, h, badge ? INSPECTOR_BG : "#ffffff",
                      moving ? TO_MOVE : "#b0bec5", moving ? 3 : 1, 6)];
    if (last) out.push(rect(x + 3, y + 3, 132, h - 6, LAST, null, 1, 4, `${name} made the last move`));
    out.push(text(x + 10, y + 27, name, 22, "#212121", true));
    if (moving) out.push(tag(x + 50, y + 10, "TO MOVE", TO_MOVE, `${name} is to move`));
    const role = badge ? `INSPECTOR ${badge}` : "smuggler";
    if (badge) out.push(tag(x + 10, y + 35, role, INSPECTOR, `${name} is inspector ${badge}`));
    else out.push(text(x + 10, y + 48, role, 12, GREY));
    if (you) out.push(tag(badge ? x + 106 : x + 80, y + 35, "you", "#37474f",
                          `the picture shows what ${name} knows`));
    const score = scene.scores === null ? null : scene.scores[Number(name.slice(1))];
    const won = (scene.winners || []).includes(name);
    const checked = bc !== null && bc.crate_of === name && BORDER_CHECK_PHASES.includes(scene.phase);
    out.push(...rowBody(seat, badge, score, won, checked, y, h));
    return group(out, seatSummary(seat, badge, you, moving));
  }
  function rowBody(seat, badge, score, won, checked, y, h) {
    const x = MARGIN, name = seat.seat, out = [];
    recordLines(seat, truth(badge)).forEach(([line, colour, tip], i) => {
      out.push(group([text(x + 10, y + 66 + 15 * i, line, 10.5, colour, colour === RED)], tip));
    });
    const gx = x + 142, gold = seat.gold;
    const tip = `${name} has ${gold} gold` + (seat.reserved_gold
      ? `, ${seat.reserved_gold} of it held for deals and bounties` : "");
    const held = seat.reserved_gold ? ` (${seat.reserved_gold} held)` : "";
    let top;
    if (score === null) {
      out.push(group([circle(gx + 9, y + 20, 9, "#ffca28", "#ff8f00"),
                      text(gx + 24, y + 27, String(gold), 19, "#212121", true),
                      text(gx + 26 + textWidth(String(gold), 19, true), y + 27, held, 9.5, GREY)],
                     tip));
      top = y + 36;
    } else {
      out.push(group([text(gx, y + 27, `score ${score}`, 17, won ? GREEN : "#212121", true)],
                     `${name} scores ${score}`));
      if (won) out.push(tag(x + 50, y + 10, "WINNER", GREEN, `${name} wins`));
      out.push(group([circle(gx + 6, y + 42, 6, "#ffca28", "#ff8f00"),
                      text(gx + 16, y + 46, `${gold} gold${held}`, 11, "#212121")], tip));
      top = y + 54;
    }
    out.push(...flow(mainChips(seat.main_resources), gx, top, 104,
                     Math.max(1, floorDiv(y + h - top, CHIP_H + GAP))));
    const lines = Math.max(1, floorDiv(h - 24, CHIP_H + GAP));
    out.push(...handCell(seat, x + 252, y, lines));
    if (checked) {
      out.push(rect(x + 466, y + 3, 252, h - 6, "none", INSPECTOR, 2, 4,
                    `the crate of ${name} is at the border check`, true));
    }
    out.push(...crateCell(seat, badge, x + 472, y, lines));
    out.push(...warehouseCell(seat, x + 728, y, lines));
    return out;
  }
  const label = (x, y, s) => text(x, y + 15, s, 10.5, GREY);
  const total = (counts) => Object.values(counts).reduce((a, k) => a + k, 0);
  function handCell(seat, x, y, lines) {
    const k = seat.hand_size;
    const out = [label(x, y, `Hand · ${k} card${k !== 1 ? "s" : ""}`)];
    let chips;
    if (seat.hand !== null) {
      chips = cardChips(seat.hand, "in hand: ");
    } else {
      const known = seat.known_hand;
      chips = cardChips(known, "surely in hand: ", true).concat(hiddenChip(
        k - total(known), `cards in ${seat.seat}'s hand, face down`));
    }
    return out.concat(flow(chips, x, y + 21, 208, lines));
  }
  const CRATE_WORDS = {none: "none yet", packing: "packing", closed: "closed",
                       announced: "announced", done: "settled", "sitting out": "sitting out"};
  function crateCell(seat, badge, x, y, lines) {
    const status = seat.crate_status, said = seat.announced, count = seat.crate_count;
    if (badge) return [label(x, y, "Crate · none: inspects this round")];
    const out = [label(x, y, `Crate · ${CRATE_WORDS[status]}`)];
    let top = y + 21;
    if (truth(said)) {
      const claim = count ? `${count} × ${said}` : said;
      out.push(group([text(x, y + 36, claim, 15, "#212121", true)],
                     `${seat.seat} announced ${claim}`));
      const verdict = crateVerdict(seat);
      if (verdict) {
        const [t, colour, why] = verdict;
        out.push(tag(x + textWidth(claim, 15, true) + 8, y + 22, t, colour, why));
      }
      top = y + 43;
      lines -= 1;
    }
    if (truth(seat.crate)) {
      out.push(...flow(cardChips(seat.crate, "in the crate: "), x, top, 244, lines));
    } else if (truth(seat.seen_this_round) || truth(seat.hidden_this_round)) {
      const chips = cardChips(seat.seen_this_round, "the crate showed: ").concat(hiddenChip(
        seat.hidden_this_round, "cards of the crate that stayed hidden"));
      out.push(...flow(chips, x, top, 244, lines));
    } else if (count && (status === "closed" || status === "announced")) {
      out.push(...flow(hiddenChip(count, "cards in the closed crate"), x, top, 244, lines));
    }
    return out;
  }
  function warehouseCell(seat, x, y, lines) {
    const up = seat.warehouse_face_up, down = seat.face_down_count;
    const out = [label(x, y, `Warehouse · ${total(up)} face up, ${down} face down`)];
    let chips = cardChips(up, "face up in the warehouse: ");
    if (seat.face_down !== null) {
      chips = chips.concat(cardChips(seat.face_down, "face down in the warehouse: ", true));
    } else {
      const known = seat.known_face_down;
      chips = chips.concat(cardChips(known, "surely face down in the warehouse: ", true),
                           hiddenChip(down - total(known), "face-down warehouse cards"));
    }
    return out.concat(flow(chips, x, y + 21, 264, lines));
  }
  function seatSummary(seat, badge, you, moving) {
    const name = seat.seat;
    const parts = [name + (you ? " (you)" : ""), badge ? `inspector ${badge}` : "smuggler",
                   `${seat.gold} gold`, `${seat.hand_size} cards in hand`];
    if (truth(seat.announced)) {
      parts.push(`announced ${seat.crate_count || ""} ${seat.announced}`.replaceAll("  ", " "));
    }
    if (truth(seat.main_resources)) parts.push("main resources " + seat.main_resources.join(", "));
    if (seat.history.lies_caught) parts.push(`caught lying ${seat.history.lies_caught} times`);
    if (moving) parts.push("to move");
    return parts.join(", ");
  }

  const box = (y, h, heading) => [rect(PANEL_X, y, PANEL_W, h, "#fafafa", "#b0bec5", 1, 6),
                                  text(PANEL_X + 12, y + 22, heading, 15, "#263238", true)];
  function parcelText(p) {
    const parts = p.gold ? [`${p.gold} gold`] : [];
    for (const [key, k] of Object.entries(p.warehouse)) parts.push(`${k} ${key} from the warehouse`);
    for (const [key, k] of Object.entries(p.crate)) parts.push(`${k} ${key} from the crate`);
    if (truth(p.promise)) parts.push("a promise");
    return parts.join(", ");
  }
  function outcome(bc) {
    const out = bc.outcome;
    if (out === "opened") {
      if (truth(bc.truthful)) return [`OPENED · TRUE: the inspector pays ${str(bc.fine)}`, GREEN];
      return [`OPENED · A LIE, CAUGHT: fine ${str(bc.fine)}`, RED];
    }
    if (out === "false bottom") return ["OPENED WITH A FALSE BOTTOM", "#6a1b9a"];
    if (out === "passed by secret route") return ["PASSED BY THE SECRET ROUTE", GREEN];
    if (out === "passed") return ["LET THROUGH", GREEN];
    return ["UNDECIDED", "#757575"];
  }
  function fit(s, width, size) {
    const room = Math.trunc(width / (size * 0.6)), chars = [...s];
    if (chars.length <= room) return s;
    return chars.slice(0, room - 1 < 0 ? chars.length + room - 1 : room - 1).join("") + "…";
  }
  function borderCheck(scene, y, bottom) {
    const bc = scene.border_check;
    const x = PANEL_X + 12, w = PANEL_W - 24;
    if (bc === null) {
      const out = box(y, 50, "Border check");
      out.push(text(x, y + 40, "no crate checked yet this round", 12, GREY));
      return [out, y + 50];
    }
    const live = BORDER_CHECK_PHASES.includes(scene.phase);
    const owner = bc.crate_of;
    const seat = scene.seats.find((s) => s.seat === owner);
    const body = [];
    let cy = y + 30;
    const claim = seat.crate_count ? `${seat.crate_count} × ${seat.announced}` : str(seat.announced);
    body.push(text(x, cy + 16, `Crate of ${owner}: announced ${claim}`, 15, "#212121", true));
    cy += 26;
    if (truth(bc.exchange) && live) {
      body.push(text(x, cy + 12, `exchange ${str(bc.exchange)}`, 11, GREY));
      cy += 16;
    }
    for (const b of bc.inspectors) {
      const colour = STATUS_COLOURS[b.status] || "#757575";
      body.push(group([circle(x + 10, cy + 11, 10, INSPECTOR),
                       text(x + 10, cy + 15, b.badge, 12, "#ffffff", true, "middle"),
                       text(x + 26, cy + 15, `${str(b.seat)}`, 13, "#212121", true)],
                      `inspector ${b.badge} is ${str(b.seat)}`));
      if (live) {
        body.push(tag(x + 56, cy + 2, b.status.toUpperCase(), colour,
                      `inspector ${b.badge}: ${b.status}`));
      }
      cy += 24;
      const facts = [];
      if (truth(b.offer) && truth(parcelText(b.offer))) facts.push([`offered: ${parcelText(b.offer)}`, "#212121"]);
      if (truth(b.demand)) facts.push([`demands ${b.demand} gold`, "#212121"]);
      if (truth(b.deal_order)) facts.push([`DEAL: ${parcelText(b.deal) || "nothing"}`, "#6a1b9a"]);
      for (const [line, colour2] of facts) {
        body.push(text(x + 26, cy + 11, fit(line, w - 26, 12), 12, colour2, line.startsWith("DEAL")));
        cy += 16;
      }
      cy += 4;
    }
    for (const bounty of bc.bounties) {
      const goods = truth(bounty.warehouse) ? countsText(bounty.warehouse) : "";
      const what = [bounty.gold ? `${bounty.gold} gold` : "", goods].filter(truth).join(", ")
        || "nothing";
      const line = `bounty ${bounty.from} → ${bounty.to}: ${what}`
        + (truth(bounty.accepted) ? " (accepted)" : "");
      if (cy + 16 < bottom - 60) {
        body.push(text(x, cy + 11, fit(line, w, 12), 12, "#4e342e"));
        cy += 16;
      }
    }
    if (truth(bc.outcome) && bc.outcome !== "pending") {
      const [banner, colour] = outcome(bc);
      body.push(group([rect(x, cy + 4, w, 26, colour, null, 1, 4),
                       text(x + w / 2, cy + 22, banner, 13, "#ffffff", true, "middle")],
                      banner.toLowerCase()));
      cy += 34;
      const shown = seat.seen_this_round, hidden = seat.hidden_this_round;
      if (truth(shown) || truth(hidden)) {
        body.push(text(x, cy + 13, "it showed:", 11, GREY));
        body.push(...flow(cardChips(shown, "the crate showed: ").concat(
          hiddenChip(hidden, "cards that stayed hidden")), x + 62, cy, w - 62, 2));
        cy += textWidth(countsText(shown), 11) < w - 100 ? 24 : 46;
      }
    }
    const extra = [];
    if (truth(bc.lawyer_to)) extra.push(`the Lawyer: half the deal to ${bc.lawyer_to}`);
    if (truth(bc.fund_paid)) extra.push(`gold paid in deals: ${bc.fund_paid}`);
    for (const line of extra) {
      body.push(text(x, cy + 12, line, 11, GREY));
      cy += 16;
    }
    const heading = live ? "Border check" : "Last border check";
    const h = cy - y + 8;
    return [box(y, h, heading).concat(body), y + h];
  }
  function tableBox(scene, y, bottom) {
    const x = PANEL_X + 12, w = PANEL_W - 24;
    const over = scene.phase === "game over";
    const out = box(y, bottom - y, "The table");
    const lines = [["round order: " + scene.round_order.join(" → "), "#212121"]];
    const runs = scene.runouts ? `, ran out ${scene.runouts}×` : "";
    lines.push([`draw pile: ${scene.draw_pile} cards${runs}`, "#212121"]);
    if (truth(scene.last_round) && !over) {
      lines.push([`the end is near: round ${scene.last_round} is the last`, RED]);
    }
    if (truth(scene.night_raid_by)) lines.push([`Night Raid this round by ${scene.night_raid_by}`, "#4a0072"]);
    let cy = y + 30;
    for (const [line, colour] of lines) {
      out.push(text(x, cy + 12, line, 12, colour, colour === RED));
      cy += 18;
    }
    const middle = mainChips(scene.main_resources_in_middle, true);
    out.push(text(x, cy + 14, "main resources in the middle:" + (middle.length ? "" : " none left"),
                  12, "#212121"));
    cy += 20;
    if (middle.length) {
      let sum = 0;
      for (const c of middle) sum += chipW(c) + GAP;
      const rows = sum <= w ? 1 : 2;
      out.push(...flow(middle, x, cy, w, rows));
      cy += rows * (CHIP_H + GAP) + 4;
    }
    const k = total(scene.discard_pile);
    out.push(text(x, cy + 12, `discard pile (open): ${k} cards`, 12, "#212121"));
    cy += 18;
    const rows = floorDiv(bottom - cy - 6, CHIP_H + GAP);
    if (rows > 0) out.push(...flow(cardChips(scene.discard_pile, "on the discard pile: "), x, cy, w, rows));
    return out;
  }
  function scoresBox(scene, y) {
    const x = PANEL_X + 12, scores = scene.scores;
    const order = [...Array(scene.num_players).keys()]
      .sort((p, q) => (scores[q] - scores[p]) || (p - q));
    const h = 34 + 20 * order.length;
    const out = box(y, h, "Final scores");
    order.forEach((p, i) => {
      const seat = `p${p}`, won = (scene.winners || []).includes(seat);
      out.push(text(x, y + 48 + 20 * i, `${seat}: ${scores[p]}` + (won ? "  ★ wins" : ""), 14,
                    won ? GREEN : "#212121", won));
    });
    return [out, y + h];
  }
  function description(scene) {
    const parts = [headline(scene) + "."];
    if (truth(scene.last_action)) {
      parts.push(`Last move: ${scene.last_action.seat} chose ${scene.last_action.action}.`);
    }
    for (const seat of scene.seats) {
      parts.push(seatSummary(seat, badgeOf(scene, seat.seat), seat.seat === scene.viewer,
                             scene.to_move === seat.seat) + ".");
    }
    const bc = scene.border_check;
    if (bc !== null && bc.outcome !== null && bc.outcome !== "pending") {
      parts.push(`The crate of ${bc.crate_of}: ${outcome(bc)[0].toLowerCase()}.`);
    }
    if (scene.scores !== null) {
      parts.push("Scores: " + scene.scores.map((s, p) => `p${p} ${s}`).join(", ") + ".");
    }
    return parts.join(" ");
  }

  function paint(scene) {
    const n = scene.num_players;
    const [width, height] = canvasSize(n);
    const body = [rect(0, 0, width, height, "#eceff1"), ...header(scene)];
    const top = HEADER + MARGIN;
    const row = Math.min(128, floorDiv(height - top - MARGIN, n));
    scene.seats.forEach((seat, i) => body.push(seatRow(scene, seat, top + i * row, row - 6)));
    let y = top;
    if (scene.scores !== null) {
      const [b, bottom] = scoresBox(scene, y);
      body.push(...b);
      y = bottom + 10;
    }
    const [b, bottom] = borderCheck(scene, y, height - MARGIN);
    body.push(...b);
    y = bottom;
    if (height - MARGIN - y >= 120) body.push(...tableBox(scene, y + 10, height - MARGIN));
    const who = truth(scene.viewer) ? `the view of ${scene.viewer}` : "the whole table";
    return svgDocument(width, height, `BORDERS: ${headline(scene)} (${who})`, description(scene),
                    body);
  }
  paint.num = num;  // svg.num, for the tests that hold the two equal
  return paint;
}
