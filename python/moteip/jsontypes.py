"""The type of the plain data moteip passes around.

Results, scenarios, summaries, points and records are JSON objects: what
the simulator prints (docs/SIMULATOR.md), what a scenario file holds, and
what a sweep writes (docs/TOOL.md). Their schema lives in those documents
and in the simulator's loader, not in Python classes, so the front end
types them as JSON objects and checks what it reads where it reads it.
"""
from __future__ import annotations

from typing import Any

#: A JSON object (a result, a scenario, a summary, a point, a run record).
JsonObj = dict[str, Any]
