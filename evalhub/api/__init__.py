"""REST API (django-ninja, token auth), the API-token page and the exports."""
