"""The table described for every front end: in words (names, choices, questions, events, deal summaries,
an agent's thoughts) and as a scene (plain data).

The terminal game (:mod:`newmarket_env.play`), the web page (:mod:`newmarket_env.web`), the text render
(:mod:`newmarket_env.render`) and the RGB picture (:mod:`newmarket_env.render.picture`) all build on it, so a
table reads the same wherever it is shown. It reads the engine, the rules and session records only: it
never imports an env or a front end.
"""
