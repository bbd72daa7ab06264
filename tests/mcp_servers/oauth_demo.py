"""An OAuth-protected MCP server built with the SDK's auth pieces: `python oauth_demo.py PORT`.

One process is both the authorization server (metadata, dynamic client registration, /authorize
that approves at once and redirects, /token for codes and refresh tokens, /revoke) and the
resource server (streamable HTTP at /mcp, or SSE at /sse with `--sse`, bearer tokens checked,
protected resource metadata). Access tokens live `--ttl` seconds. Test hooks, outside OAuth:
GET /stats (what was issued, counted by grant), POST /ttl?seconds=N (the lifetime of the
access tokens issued from now on) and POST /revoke-all (every token forgotten; with
`?keep=refresh`, the access tokens only).
"""

from __future__ import annotations

import argparse
import secrets
import time
from collections import Counter

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

SCOPE = "demo"


class Provider:
    """Everything in memory; authorization is granted without asking anyone."""

    def __init__(self, ttl: int) -> None:
        self.ttl = ttl
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.grants: Counter[str] = Counter()

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id
        self.clients[client_info.client_id] = client_info
        self.grants["register"] += 1

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self.grants["authorization_code"] += 1
        return self._issue(client.client_id or "", authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]  # rotated
        self.grants["refresh_token"] += 1
        return self._issue(client.client_id or "", scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_hex(16), secrets.token_hex(16)
        expires = int(time.time()) + self.ttl
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            expires_in=self.ttl,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def build(port: int, ttl: int, sse: bool) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    provider = Provider(ttl)
    auth = AuthSettings(
        issuer_url=base,  # type: ignore[arg-type]
        resource_server_url=f"{base}/sse" if sse else f"{base}/mcp",  # type: ignore[arg-type]
        validate_token_resource=False,
        required_scopes=[SCOPE],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
        ),
        revocation_options=RevocationOptions(enabled=True),
    )
    server = MCPServer("oauth-demo", auth_server_provider=provider, auth=auth)

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.custom_route("/stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse({"grants": dict(provider.grants), "clients": len(provider.clients)})

    @server.custom_route("/ttl", methods=["POST"])
    async def set_ttl(request: Request) -> Response:
        provider.ttl = int(request.query_params["seconds"])
        return JSONResponse({"ok": True})

    @server.custom_route("/revoke-all", methods=["POST"])
    async def revoke_all(request: Request) -> Response:
        provider.access.clear()
        if request.query_params.get("keep") != "refresh":
            provider.refresh.clear()
        return JSONResponse({"ok": True})

    return server


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("--ttl", type=int, default=3600, help="access tokens' lifetime (seconds)")
    p.add_argument("--sse", action="store_true", help="the SSE transport instead of /mcp")
    args = p.parse_args()
    server = build(args.port, args.ttl, args.sse)
    if args.sse:
        server.run("sse", host="127.0.0.1", port=args.port)
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
