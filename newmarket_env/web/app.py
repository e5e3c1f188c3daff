"""The web app (FastAPI): one self-contained page and a small JSON API.

Routes (all JSON but ``/``):

- ``GET  /``                          the page (inline CSS and JS, nothing fetched from the internet)
- ``GET  /favicon.ico``                the page's icon
- ``GET  /api/options``               variants, agents (``seated``: those the server's ``--agent`` seated),
                                      rules parameters: what the forms offer
- ``POST /api/check``                 a new table's form, checked before the deal: ``{"problem": one line or
                                      null, "refused": [{"agent", "reason"}]}`` (agents that refuse its rules)
- ``POST /api/games``                 a new table, ``{"mode": "play"|"watch", "variant", "players", "agents",
                                      "seat", "seed", "rules"}``; answers its id and first view
- ``GET  /api/games/{id}?view=``      the table (a player: their seat; a watcher: ``all`` or a seat)
- ``POST /api/games/{id}/act``        the person's decision ``{"action": id}`` (play)
- ``POST /api/games/{id}/next``       the person has read the deal's result: on to the next deal (play)
- ``POST /api/games/{id}/step``       one agent decision (watch)
- ``GET  /api/games/{id}/record``     the session record, for replay (a played table: once it is over)
- ``POST /api/replays?game=K``        a record file as the body (JSON, JSON lines, gzipped or not)
- ``GET  /api/replays/{id}/{frame}``  the table before the first decision (0) or after decision ``frame``

Bad input is a 4xx with ``{"error": "one line"}``; no request gets a traceback.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from newmarket_env.agents import available_agents
from newmarket_env.game.rules import PARAMETER_NAMES, VARIANTS
from newmarket_env.records import RecordTooLarge, pick_record
from newmarket_env.web.guard import DEFAULT_ALLOWED_HOSTS, Guard
from newmarket_env.web.icon import favicon
from newmarket_env.web.tables import MODES, BadInput, GameStore, ReplayGame, TableGame, refusals

MAX_RECORD_BYTES = 20 * 2**20  # a tournament's records file of a few thousand sessions fits (gzipped)
MAX_FORM_BYTES = 64 * 2**10  # a new table's form or a decision: a few hundred bytes


class NewGame(BaseModel):
    """The form of a new table (the page's Play and Watch tabs)."""

    mode: str = "play"
    variant: str = "newmarket"
    players: int | None = None
    agents: list[str] = Field(default_factory=lambda: ["random"])
    seat: int = 0
    seed: int | None = None
    rules: dict[str, Any] = Field(default_factory=dict)


class Action(BaseModel):
    action: int


def _page() -> str:
    return resources.files("newmarket_env.web").joinpath("static/index.html").read_text(encoding="utf-8")


def body_limit(path: str) -> int:
    """The most bytes a request body to ``path`` may have."""
    return MAX_RECORD_BYTES if path.rstrip("/") == "/api/replays" else MAX_FORM_BYTES


def create_app(
    store: GameStore | None = None,
    allowed_hosts: Sequence[str] = DEFAULT_ALLOWED_HOSTS,
    seated: Mapping[str, str] | None = None,
) -> FastAPI:
    """The app; each app has its own games (tests make one each).

    ``allowed_hosts``: the names a request's ``Host`` header may give (:mod:`newmarket_env.web.guard`).
    ``seated``: the agents the person starting the server seats, ``{NAME: file path or MODULE:ATTR}``, checked
    by :func:`newmarket_env.web.seated.parse_seated` (``newmarket serve --agent NAME=...``); requests name
    them by NAME only.
    """
    seated = dict(seated or {})
    app = FastAPI(title="newmarket-env", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(Guard, allowed_hosts=allowed_hosts, body_limit=body_limit)
    games = store or GameStore()
    page = _page()

    @app.exception_handler(BadInput)
    async def bad_input(request: Request, err: BadInput) -> JSONResponse:
        return JSONResponse({"error": str(err)}, status_code=err.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, err: RequestValidationError) -> JSONResponse:
        # FastAPI's default is a list of dicts; the page shows one line naming the field and the problem.
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:]) or 'body'}: {e['msg']}" for e in err.errors())
        return JSONResponse({"error": f"bad request: {problems}"}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:  # unknown route, wrong method
        message = f"{request.method} {request.url.path}: {err.detail}"
        return JSONResponse({"error": message}, status_code=err.status_code)

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page

    @app.get("/favicon.ico")
    def icon() -> Response:
        return Response(favicon(), media_type="image/x-icon", headers={"Cache-Control": "max-age=86400"})

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {
            "variants": {
                name: {"players": list(v.players), "default_players": v.default_players} for name, v in VARIANTS.items()
            },
            "agents": available_agents(),
            "seated": list(seated),
            "parameters": [p for p in PARAMETER_NAMES if p != "num_players"],
            "modes": list(MODES),
        }

    @app.post("/api/check")
    def check(form: NewGame) -> dict[str, Any]:
        return refusals(form.model_dump(), seated)

    @app.post("/api/games")
    def new_game(form: NewGame) -> dict[str, Any]:
        fields = (form.mode, form.variant, form.players, form.agents, form.seat, form.seed, form.rules)
        table = TableGame(*fields, seated=seated)
        key = games.add(table)
        return {"id": key, **table.view()}

    @app.get("/api/games/{key}")
    def show_game(key: str, view: str | None = None) -> dict[str, Any]:
        table = games.get(key, TableGame)
        with table.lock:
            return {"id": key, **table.view(view)}

    @app.post("/api/games/{key}/act")
    def act(key: str, body: Action) -> dict[str, Any]:
        table = games.get(key, TableGame)
        with table.lock:
            table.act(body.action)
            return {"id": key, **table.view()}

    @app.post("/api/games/{key}/next")
    def next_deal(key: str) -> dict[str, Any]:
        table = games.get(key, TableGame)
        with table.lock:
            table.next_deal()
            return {"id": key, **table.view()}

    @app.get("/api/games/{key}/record")
    def game_record(key: str) -> dict[str, Any]:
        table = games.get(key, TableGame)
        with table.lock:
            return table.record()

    @app.post("/api/games/{key}/step")
    def step(key: str, view: str | None = None) -> dict[str, Any]:
        table = games.get(key, TableGame)
        with table.lock:
            table.step()
            return {"id": key, **table.view(view)}

    @app.post("/api/replays")
    def new_replay(data: bytes = Body(b"", media_type="application/octet-stream"), game: int = 1) -> dict[str, Any]:
        if not data:
            raise BadInput(
                "no record sent: choose a record file (from newmarket play --save, a tournament's "
                "records.jsonl.gz, or the env's record())"
            )
        if len(data) > MAX_RECORD_BYTES:
            raise BadInput(f"the file is {len(data)} bytes; the limit is {MAX_RECORD_BYTES}", 413)
        try:  # read a line at a time within the reader's limits; only record ``game`` is kept
            title, record, count = pick_record(io.BytesIO(data).read, "the file", game)
        except ValueError as err:
            raise BadInput(str(err), 413 if isinstance(err, RecordTooLarge) else 400) from None
        if not 1 <= game <= count:
            raise BadInput(f"game {game} is out of range; the file holds records 1..{count}")
        replay = ReplayGame(record, title)
        key = games.add(replay)
        return {"id": key, "records": count, "game": game, **replay.frame(0)}

    @app.get("/api/replays/{key}/{frame}")
    def replay_frame(key: str, frame: int) -> dict[str, Any]:
        return {"id": key, **games.get(key, ReplayGame).frame(frame)}

    return app
