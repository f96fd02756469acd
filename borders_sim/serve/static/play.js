// The page of borders-sim serve: it only calls the JSON API under /api (borders_sim/serve/api.py).
"use strict";

const $ = (id) => document.getElementById(id);
const page = {bots: [], defaults: {}, id: null, game: null, viewer: null, timer: null,
              busy: false, token: null};
//: Milliseconds between two looks at the game while another person is to move.
const WAIT_FOR_PERSON_MS = 1000;

async function api(method, path, body) {
  const init = {method: method, headers: {}};
  if (page.token) {
    init.headers["Authorization"] = "Bearer " + page.token;  // (this seat's, from its link)
  }
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function showError(err) {
  const box = $("error");
  box.textContent = err ? String(err.message || err) : "";
  box.hidden = !err;
}

function option(value, text, selected) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  o.selected = Boolean(selected);
  return o;
}

function seatName(game, p) {
  const name = game.seats[p].name;
  return name === "you" ? `p${p} (you)` : `p${p} ${name}`;
}

// --- the start screen ---------------------------------------------------------------------
function fillSeats() {
  const players = Number($("players").value);
  const seat = $("seat");
  const was = seat.value;
  seat.replaceChildren();
  for (let p = 0; p < players; p++) {
    seat.append(option(String(p), `p${p}`, String(p) === was));
  }
  seat.append(option("watch", "none: watch the bots", was === "watch"));
  if (!seat.value) {
    seat.value = "0";
  }
  fillLineup();
}

function fillLineup() {
  const players = Number($("players").value);
  const watch = $("seat").value === "watch";
  const defaults = page.defaults[String(players)][watch ? "watch" : "play"];
  const box = $("lineup");
  box.querySelectorAll("label").forEach((label) => label.remove());
  let k = 0;
  for (let p = 0; p < players; p++) {
    if (!watch && String(p) === $("seat").value) {
      continue;
    }
    const label = document.createElement("label");
    const select = document.createElement("select");
    select.className = "bot";
    for (const bot of page.bots) {
      select.append(option(bot, bot, bot === defaults[k]));
    }
    label.append(`p${p} `, select);
    box.append(label);
    k++;
  }
}

async function loadStart() {
  const bots = await api("GET", "/api/bots");
  page.bots = bots.bots;
  page.defaults = bots.default_lineups;
  page.seeds = bots.seeds;
  $("seed-box").hidden = !bots.seeds;  // (a secret seed unless the server allows a choice)
  if (bots.study) {  // a study's server: its consent line, before anyone plays
    $("consent").textContent = bots.study;
    $("consent").hidden = false;
  }
  for (const n of bots.players) {
    $("players").append(option(String(n), String(n), n === 4));
  }
  fillSeats();
  const records = (await api("GET", "/api/records")).records;
  $("records-box").hidden = records.length === 0;
  for (const name of records) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = name;
    button.addEventListener("click", () => openGame({record: name}));
    const item = document.createElement("li");
    item.append(button);
    $("records").append(item);
  }
}

function newGameBody() {
  const seat = $("seat").value;
  return {
    players: Number($("players").value),
    seat: seat === "watch" ? null : Number(seat),
    bots: Array.from(document.querySelectorAll("#lineup select.bot"), (s) => s.value),
    action_cards: $("action-cards").checked,
    ...(page.seeds && $("seed").value !== "" ? {seed: Number($("seed").value)} : {}),
  };
}

async function openGame(body) {
  showError(null);
  $("status").textContent = "Dealing...";
  const created = await api("POST", "/api/games", body);
  page.id = created.id;
  page.game = created.game;
  page.viewer = created.game.human === null ? "table" : String(created.game.human);
  fillViewers();
  $("start").hidden = true;
  $("table").hidden = false;
  await refresh();
}

// --- the table ----------------------------------------------------------------------------
function fillViewers() {
  const game = page.game;
  const select = $("viewer");
  select.replaceChildren();
  const open = game.kind !== "play" || game.over;
  if (open) {
    select.append(option("table", "the whole table", page.viewer === "table"));
  }
  for (let p = 0; p < game.players; p++) {
    if (open || p === game.human) {
      select.append(option(String(p), `${seatName(game, p)}'s view`, String(p) === page.viewer));
    }
  }
}

function describe(game) {
  if (game.over) {
    return `Game over after ${game.moves} moves.`;
  }
  const who = game.your_turn ? "your move" : `${seatName(game, game.to_move)} to move`;
  return `Round ${game.round} · ${game.phase} · ${who}`;
}

function render(data) {
  const game = data.game;
  const reopened = game.over && !page.game.over;
  page.game = game;
  if (reopened) {
    fillViewers();
  }
  $("status").textContent = describe(game);
  $("picture").innerHTML = data.svg;
  const log = $("log");
  log.replaceChildren(...data.log.map((move) => {
    const item = document.createElement("li");
    item.textContent = `${move.seat}: ${move.action}`;
    return item;
  }));
  log.scrollTop = log.scrollHeight;
  const mine = game.your_turn && data.seat === game.human ? data.view.legal_actions : [];
  $("legal").replaceChildren(...mine.map((legal) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "legal";
    button.textContent = legal.action;
    button.addEventListener("click", () => act(legal.id));
    return button;
  }));
  $("your-move").hidden = mine.length === 0;
  $("next").disabled = game.over || game.your_turn;
  $("final").hidden = !game.over;
  if (game.over) {
    $("scores").replaceChildren(...game.scores.map((score, p) => {
      const item = document.createElement("li");
      const won = game.winners.includes(p);
      item.className = won ? "winner" : "";
      item.textContent = `${seatName(game, p)}: ${score}${won ? " (winner)" : ""}`;
      return item;
    }));
  }
}

async function refresh() {
  const seat = page.viewer === "table" ? "table" : page.viewer;
  render(await api("GET", `/api/games/${page.id}/view?seat=${seat}`));
  schedule();
}

function personToMove(game) {
  return !game.over && game.seats[game.to_move].name === "person";
}

function othersStep(game) {
  // several people: the page of the first person's seat steps the bots; the others look on
  return game.people.length > 1 && game.human !== game.people[0];
}

function waitsForOthers(game) {
  // another person decides, or another page steps the bots; a turn past the server's
  // --seat-timeout is overdue: any page steps it (a person's by its stand-in bot)
  return (personToMove(game) || othersStep(game)) && !game.overdue;
}

function schedule() {
  clearTimeout(page.timer);
  const pace = Number($("pace").value);
  if (!page.id || page.game.over || page.game.your_turn) {
    return;
  }
  if (waitsForOthers(page.game)) {  // look again, at a bounded rate
    page.timer = setTimeout(() => guarded(refresh), WAIT_FOR_PERSON_MS);
  } else if (pace > 0) {
    page.timer = setTimeout(() => guarded(stepOnce), pace);
  }
}

async function guarded(work) {
  if (page.busy) {
    return;
  }
  page.busy = true;
  try {
    await work();
  } catch (err) {
    showError(err);
  } finally {
    page.busy = false;
  }
}

async function stepOnce() {
  if (!page.game.over && !page.game.your_turn && !waitsForOthers(page.game)) {
    try {
      await api("POST", `/api/games/${page.id}/step`, {});
    } catch (error) {
      if (error.status !== 409) {  // (another person's page took that step first)
        throw error;
      }
    }
    await refresh();
  }
}

function act(id) {
  guarded(async () => {
    await api("POST", `/api/games/${page.id}/act`, {action: id});
    await refresh();
  });
}

function leave() {
  clearTimeout(page.timer);
  const id = page.id;
  const shared = page.token !== null;  // (a game of several people stays for the others)
  page.id = null;
  page.token = null;
  $("table").hidden = true;
  $("start").hidden = false;
  $("status").textContent = "Choose a game.";
  if (!shared) {
    guarded(() => api("DELETE", `/api/games/${id}`));
  }
}

async function joinGame(id, token) {  // a person's link: /#game=ID&token=TOKEN
  page.id = id;
  page.token = token;
  const status = await api("GET", `/api/games/${id}`);
  page.game = status.game;
  page.viewer = String(status.game.human);
  fillViewers();
  $("start").hidden = true;
  $("table").hidden = false;
  await refresh();
}

document.addEventListener("DOMContentLoaded", () => {
  $("players").addEventListener("change", fillSeats);
  $("seat").addEventListener("change", fillLineup);
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => openGame(newGameBody()));
  });
  $("viewer").addEventListener("change", () => {
    page.viewer = $("viewer").value;
    guarded(refresh);
  });
  $("pace").addEventListener("change", schedule);
  $("next").addEventListener("click", () => guarded(stepOnce));
  $("leave").addEventListener("click", leave);
  const link = new URLSearchParams(location.hash.slice(1));
  loadStart().then(() => {
    if (link.get("game") && link.get("token")) {
      return guarded(() => joinGame(link.get("game"), link.get("token")));
    }
  }).catch(showError);
});
