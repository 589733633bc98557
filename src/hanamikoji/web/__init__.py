"""The web app: ``hanamikoji serve`` (server, storage and the static front end); see docs/web.md."""
