"""gunicorn settings read by every web process started from the repository's root
(Procfile, deploy/, ``manage.py up``, bench/); command-line options override them.

``reuse_port``: each worker process listens on a socket of its own and the kernel
spreads new connections evenly over them. With one shared socket, whichever process
wakes first accepts, and browsers' keep-alive connections pile up on a few processes:
measured with 250 keep-alive clients on 4 processes, one process ran at a full core
(its threads waiting on each other for Python's interpreter lock) while another sat
at a tenth, and leaderboard p99 doubled (bench/README.md)."""

reuse_port = True
