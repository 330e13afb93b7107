#!/usr/bin/env python3
"""Writes the seed corpora under tests/fuzz/corpus/<target>/ from the wire fixtures in tests/fixtures
and a few hand-written inputs. Run from anywhere; files are overwritten, never deleted, so inputs
libFuzzer added (and that were committed) stay."""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'fixtures')
ROOT = os.path.join(HERE, '..', '..')
# The order of ProviderRegistry::all(): the first input byte picks the dialect by this index.
DIALECTS = ['openai_compat', 'anthropic', 'gemini', 'dashscope', 'ernie']


def write(target, name, data):
    folder = os.path.join(HERE, 'corpus', target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), 'wb') as f:
        f.write(data)


def fixture_files(dialect, suffixes):
    folder = os.path.join(FIXTURES, dialect)
    return sorted(f for f in os.listdir(folder) if f.endswith(suffixes) and f not in ('cases.json', 'manifest.json'))


def status_of(name):
    m = re.search(r'(?<![0-9])([1-5][0-9][0-9])(?![0-9])', name)
    return int(m.group(1)) if m else 200


# Stream translators and the SSE parser: every .sse fixture, cut in two different ways.
for index, dialect in enumerate(DIALECTS):
    for n, name in enumerate(fixture_files(dialect, ('.sse',))):
        with open(os.path.join(FIXTURES, dialect, name), 'rb') as f:
            stream = f.read()
        flags = (n % 4) * len(DIALECTS) + index  # also varies include_usage and tools
        write('stream_translator', f'{dialect}-{name}', bytes([flags, n * 37 % 256]) + stream)
        write('sse_parser', f'{dialect}-{name}', bytes([n * 11 % 256]) + stream)

# Error maps: status, headers and each .json/.html/.txt body.
for index, dialect in enumerate(DIALECTS):
    for name in fixture_files(dialect, ('.json', '.html', '.txt')):
        if name.startswith('openai_request'):
            continue
        with open(os.path.join(FIXTURES, dialect, name), 'rb') as f:
            body = f.read()
        status = status_of(name)
        headers = b'content-type: application/json\nretry-after: 7\n\n' if status == 429 else b'content-type: application/json\n\n'
        write('errormap', f'{dialect}-{name}', bytes([index, status >> 8, status & 0xff]) + headers + body)

# SSE edge cases by hand.
for n, data in enumerate([
        b'\xef\xbb\xbfdata: bom\n\n',
        b'data: a\r\ndata: b\r\r\nid: 7\rretry: 1500\r\n\r\n',
        b': keep-alive\n\nevent: ping\ndata\n\ndata:\n\n',
        b'data: ' + b'x' * 300 + b'\n\ndata: after\n\n',
        b'id: 1\x00\ndata: nul in id\n\nretry: -5\nretry: 99999999999\n\n',
        b'data: no blank line at the end',
]):
    write('sse_parser', f'hand-{n}', bytes([n * 53 % 256]) + data)

# UTF-8: valid text in many scripts, every kind of invalid sequence, cut by the first byte.
utf8 = [
    'plain ASCII'.encode(), 'Grüße, café'.encode(), '你好，世界。今天天气很好'.encode(),
    'Tiếng Việt có dấu'.encode(), '😀👍🏽👨‍👩‍👧'.encode(), 'العربية עברית'.encode(),
    b'\xc0\xaf overlong slash', b'\xed\xa0\x80 surrogate', b'\xf4\x90\x80\x80 above U+10FFFF',
    b'\xe4\xbd truncated at the end \xe4\xbd', b'\x80\x80 lone continuations \xbf',
    b'\xff\xfe\xfd', b'\xf0\x9f\x98', b'\xe0\x80\x80\xf8\x88\x80\x80\x80',
]
for n, data in enumerate(utf8):
    write('utf8_reassembler', f'seed-{n}', bytes([n * 29 % 256]) + data)

# Config JSON: the shipped default configuration and small variants.
with open(os.path.join(ROOT, 'resources', 'default-config.json'), 'rb') as f:
    default = f.read()
write('config_json', 'default-config.json', default)
write('config_json', 'empty-object.json', b'{}')
write('config_json', 'wrong-version.json', b'{"version": 99}')
write('config_json', 'not-json.json', b'{"version": 1,')
try:
    doc = json.loads(default)
    doc.get('providers', [{}])[0]['base_url'] = 'not a url'
    write('config_json', 'bad-url.json', json.dumps(doc).encode())
    doc = json.loads(default)
    doc['settings'] = {'health': {'window_s': -1}, 'retry': {'max_attempts': 'many'}}
    write('config_json', 'bad-settings.json', json.dumps(doc).encode())
except (KeyError, IndexError, TypeError, AttributeError):
    pass

# HTTP requests: the shapes the server handles, including pipelining, chunking and the handler's paths.
chat = b'{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}'
http = {
    'get-healthz': b'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
    'post-chat': b'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' % (len(chat), chat),
    'chunked': b'POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: t\r\n\r\n',
    'pipelined': b'GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /stream?x=1 HTTP/1.1\r\nHost: x\r\n\r\nDELETE /d HTTP/1.1\r\nHost: x\r\n\r\nGET /forget HTTP/1.1\r\n\r\n',
    'abort': b'GET /abort HTTP/1.1\r\nHost: x\r\n\r\n',
    'expect-continue': b'POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody',
    'http10': b'GET /stream HTTP/1.0\r\n\r\n',
    'head': b'HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'options-star': b'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
    'upgrade': b'GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nGET /after HTTP/1.1\r\n\r\n',
    'smuggle': b'POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'partial-body': b'POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort',
    'h2-preface': b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
}
for name, data in http.items():
    write('http_request', name, data)

# The request reader alone: the same shapes, and the usual API request in the ways the one-pass path
# must either read exactly as llhttp does or leave to it.
body = b'{"model":"bench","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}'
api = (b'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:19003\r\nContent-Type: application/json\r\n'
       b'Authorization: Bearer sk-test\r\nContent-Length: %d\r\n\r\n' % len(body)) + body
reader = dict(http)
reader.update({
    'api': api,
    'api-pipelined': api + api + b'GET /v1/models?x=1 HTTP/1.1\r\nHost: a\r\n\r\n',
    'api-body-cut': api[:-10],
    'api-expect': api.replace(b'Content-Type', b'Expect: 100-continue\r\nContent-Type'),
    'api-close-then-more': api.replace(b'Content-Type', b'Connection: close\r\nContent-Type') + api,
    'api-keep-alive': api.replace(b'Content-Type', b'Connection: keep-alive\r\nContent-Type') + api,
    'whitespace-around-values': b'GET /a HTTP/1.1\r\nHost:  a  \r\nX-A:\tb c\t\r\nX-E:\r\n\r\n',
    'two-lengths': b'POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc',
    'no-host-then-host': b'GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n',
})
for name, data in reader.items():
    write('http_request_reader', name, data)

# HTTP responses as upstreams send them: the first byte's low bit says the request was HEAD (and seeds the cuts).
answer = b'{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}'
responses = {
    'content-length': b'\x00HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' % (len(answer), answer),
    'chunked-sse': b'\x02HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n'
                   b'e\r\ndata: {"a":1}\n\n\r\n7;ext=x\r\ndata: [\r\n0\r\nTrailer: t\r\n\r\n',
    'close-delimited': b'\x04HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the close',
    'interim': b'\x06HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 429 Too Many\r\nRetry-After: 3\r\nContent-Length: 2\r\n\r\n{}',
    'head': b'\x01HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n',
    'no-content': b'\x08HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n\r\n',
    'http10': b'\x0aHTTP/1.0 503 Service Unavailable\r\nContent-Length: 3\r\n\r\nbad',
    'trailing-bytes': b'\x0cHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n',
    'cut-short': b'\x0eHTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort',
    'not-http': b'\x10SSH-2.0-OpenSSH_9.2\r\n',
    'switching': b'\x12HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n',
}
for name, data in responses.items():
    write('http_response', name, data)

print('seeds written under', os.path.join(HERE, 'corpus'))
