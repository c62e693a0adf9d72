"""What a viewer may see and how boards, figures, analyses, pages and exports
are drawn and cached. ``visibility`` is the one rule of which scores a viewer sees."""
