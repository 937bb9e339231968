"""Talks to a Weft agent with the official Python `a2a-sdk` client, as a user's script would, and prints what it got as JSON.

usage: python python-a2a-client.py SERVER_URL AGENT_ID MESSAGE   (the personal token in WEFT_TOKEN)
"""
import asyncio
import json
import os
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.helpers import get_artifact_text, get_message_text
from a2a.types import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState


async def main() -> None:
    server, agent_id, text = sys.argv[1:4]
    headers = {"Authorization": f"Bearer {os.environ['WEFT_TOKEN']}"}
    async with httpx.AsyncClient(headers=headers, timeout=120) as http:
        card = await A2ACardResolver(http, f"{server}/a2a/{agent_id}").get_agent_card()
        client = await create_client(card, client_config=ClientConfig(httpx_client=http, streaming=False))
        message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=[Part(text=text)])
        task = None
        async for event in client.send_message(SendMessageRequest(message=message)):
            if event.HasField("task"):
                task = event.task
        assert task is not None, "the agent answered without a task"
        answer = get_message_text(task.status.message, delimiter="") if task.status.HasField("message") else ""
        artifacts = "".join(get_artifact_text(a, delimiter="") for a in task.artifacts)
        fetched = await client.get_task(GetTaskRequest(id=task.id))

        async with httpx.AsyncClient(headers={"Authorization": "Bearer weft_pat_wrong"}, timeout=30) as wrong:
            refused = (await wrong.get(f"{server}/a2a/{agent_id}/.well-known/agent-card.json")).status_code

        print(
            json.dumps(
                {
                    "card": {"name": card.name, "interfaces": [i.url for i in card.supported_interfaces]},
                    "task": {"id": task.id, "context_id": task.context_id, "state": TaskState.Name(task.status.state), "answer": answer, "artifacts": artifacts},
                    "fetched_state": TaskState.Name(fetched.status.state),
                    "wrong_token_status": refused,
                }
            )
        )
        await client.close()


asyncio.run(main())
