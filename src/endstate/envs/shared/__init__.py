"""What every system of the suite shares on the web: session binding and page events, form
checks, control names, the payer portals' common pages, documents as files, the shared page
templates and static files."""
