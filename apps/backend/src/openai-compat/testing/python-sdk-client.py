"""Talks to a Weft agent with the official Python `openai` SDK, as a user's script would, and prints what it got as JSON.

usage: python python-sdk-client.py BASE_URL MODEL MESSAGE   (the token in OPENAI_API_KEY)
"""
import json
import sys

import openai
from openai import OpenAI

base_url, model, message = sys.argv[1:4]
client = OpenAI(base_url=base_url, max_retries=0, timeout=120)

models = [m.id for m in client.models.list()]

answer = client.chat.completions.create(model=model, messages=[{"role": "user", "content": message}])

chunks = list(client.chat.completions.create(model=model, messages=[{"role": "user", "content": message}], stream=True))

try:
    OpenAI(base_url=base_url, api_key="weft_pat_wrong", max_retries=0).chat.completions.create(model=model, messages=[{"role": "user", "content": message}])
    refused = None
except openai.AuthenticationError as error:
    refused = {"status": error.status_code, "code": error.code}

print(
    json.dumps(
        {
            "sdk": openai.__version__,
            "models": models,
            "answer": {"id": answer.id, "object": answer.object, "model": answer.model, "content": answer.choices[0].message.content, "finish_reason": answer.choices[0].finish_reason},
            "stream": {
                "ids": sorted({c.id for c in chunks}),
                "objects": sorted({c.object for c in chunks}),
                "content": "".join(c.choices[0].delta.content or "" for c in chunks if c.choices),
                "finish_reason": chunks[-1].choices[0].finish_reason,
            },
            "wrong_token": refused,
        }
    )
)
