#!/usr/bin/env python3
"""The websites of BrowserSiteTests: FOLDER's files over TLS on 127.0.0.1 (plain HTTP without CERT
and KEY), on a port the kernel chooses, which it prints first.
usage: site-server.py FOLDER [CERT KEY]"""
import functools
import http.server
import ssl
import sys

folder = sys.argv[1]
cert, key = (sys.argv[2:4] + [None, None])[:2]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):   # its output is the port alone
        pass


handler = functools.partial(Quiet, directory=folder)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
if cert:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
