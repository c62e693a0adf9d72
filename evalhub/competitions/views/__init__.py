"""Pages, one module per concept. Each view: authentication, form, one service
call, render."""
