"""web_fetch and web_search (`tools`): fetching with the egress rules (`fetching`, `addresses`:
no private or metadata addresses unless allowed), HTML made Markdown, and the search
providers (`search`).

May import: tools.shared, base, config; never another tool family.
"""
