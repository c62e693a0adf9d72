"""Task types: pure Python parsers, metrics and plots. Never imports Django or evalhub."""
