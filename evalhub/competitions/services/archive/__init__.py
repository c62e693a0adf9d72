"""A task kept whole beyond its server: the lossless archive (``writer`` exports,
``reader`` imports; ``parts`` is the extension point where feature apps add their
rows) and the static snapshot of its public pages (``site``)."""
