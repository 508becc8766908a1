"""A real MCP client (the MCP Python SDK) against Gleaner's POST /mcp.

Usage: client.py URL KEY PLAN

PLAN is a JSON file: {"mode": "legacy" | "auto", "calls": [[tool, arguments], ...]}.
The client connects over Streamable HTTP with the API key in `x-api-key` (no
header when KEY is empty), lists the tools, makes each call in order, and
prints one JSON object: the protocol version negotiated, the tools (name,
description, input schema), and each call's result (is_error, structured
content, text). A call whose arguments hold "$job_id" gets the job id the
last submit_job answered. When the connection or listing fails, it prints
{"failed": "<error>"} instead and exits 0, so the caller asserts on it.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


def substitute(value, job_id):
    if value == "$job_id":
        return job_id
    if isinstance(value, dict):
        return {k: substitute(v, job_id) for k, v in value.items()}
    return value


async def run(url, key, plan):
    headers = {"x-api-key": key} if key else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(120.0))
    out = {}
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=plan.get("mode", "legacy")) as client:
            out["protocol"] = client.session.protocol_version
            listed = await client.list_tools()
            out["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                for t in listed.tools
            ]
            job_id = None
            calls = []
            for name, arguments in plan.get("calls", []):
                result = await client.call_tool(name, substitute(arguments, job_id))
                text = "".join(getattr(block, "text", "") for block in result.content)
                structured = result.structured_content
                if name == "submit_job" and structured and "job_id" in structured:
                    job_id = structured["job_id"]
                calls.append(
                    {
                        "tool": name,
                        "is_error": bool(result.is_error),
                        "structured": structured,
                        "text": text,
                    }
                )
            out["calls"] = calls
    return out


def main():
    url, key, plan_path = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(plan_path) as f:
        plan = json.load(f)
    try:
        out = asyncio.run(run(url, key, plan))
    except BaseException as e:  # noqa: BLE001 - the caller asserts on what failed
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out = {"failed": f"{type(e).__name__}: {e!r}"}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
