/// The files the pages Kura shows itself load (the action page, and `/` when nothing is hosted there): one
/// stylesheet, one small script and the icon, each served from its own path so the action page's policy needs no
/// `'unsafe-inline'` and nothing is fetched from elsewhere. The look follows the seed apps' landing page.
enum ActionPageAssets {
    /// `/auth/action.css`.
    static let stylesheet = """
        :root{--ink:#1d2230;--muted:#5d6475;--paper:#f4f1ea;--card:#fff;--line:#ddd6c8;--accent:#c2452d;\
        --focus:#3b6fd8;--good:#1f7a4a;--good-bg:#e4f3ea;--bad:#a4261b;--bad-bg:#fbe9e6;--radius:14px;\
        --shadow:0 1px 2px rgb(0 0 0/.06),0 8px 24px rgb(0 0 0/.07);\
        --font:system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans CJK JP","Noto Sans JP",sans-serif;\
        color-scheme:light}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;min-height:100vh;display:grid;grid-template-rows:auto 1fr auto;font-family:var(--font);\
        font-size:16px;line-height:1.6;color:var(--ink);background:var(--paper)}
        :lang(ja){word-break:auto-phrase}
        a{color:var(--ink)}
        :focus-visible{outline:3px solid var(--focus);outline-offset:2px}
        h1{font-size:clamp(1.35rem,1.1rem + 1vw,1.7rem);line-height:1.3;margin:0 0 .75rem}
        h2{font-size:1.1rem;margin:0 0 .4rem}
        p{margin:0 0 .9rem}
        code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em;background:#ebe6db;\
        padding:.05em .35em;border-radius:4px;overflow-wrap:anywhere}
        .bar{border-bottom:1px solid var(--line);background:var(--card)}
        .bar-inner{max-width:32rem;margin:0 auto;padding:.6rem 1rem;display:flex;align-items:center;\
        justify-content:space-between;gap:1rem;flex-wrap:wrap}
        .brand{display:inline-flex;align-items:center;gap:.6rem;font-weight:700;font-size:1.05rem}
        .brand img{border-radius:8px}
        .lang{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:.3rem .9rem;\
        text-decoration:none;font-size:.9rem;background:var(--paper)}
        .lang:hover{border-color:var(--ink)}
        main{width:100%;max-width:32rem;margin:0 auto;padding:2rem 1rem 3rem}
        .panel{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);\
        box-shadow:var(--shadow);padding:clamp(1.1rem,.8rem + 2vw,2rem);max-width:30rem;margin:0 auto}
        .badge{display:grid;place-items:center;width:3rem;height:3rem;border-radius:12px;background:var(--ink);\
        color:var(--paper);font-size:1.4rem;font-weight:700;margin-bottom:1rem}
        .done .badge{background:var(--good-bg);color:var(--good)}
        .problem .badge{background:var(--bad-bg);color:var(--bad)}
        .lead{color:var(--muted)}
        .lead strong{color:var(--ink);overflow-wrap:anywhere}
        label{display:block;font-weight:600;margin-bottom:.2rem}
        .hint{color:var(--muted);font-size:.92rem;margin-bottom:.5rem}
        .password{display:grid;grid-template-columns:1fr auto;gap:.5rem;margin-bottom:1.1rem}
        input[type=password],input[type=text]{font:inherit;width:100%;min-height:44px;padding:.5rem .75rem;\
        border:1.5px solid var(--line);border-radius:10px;background:#fff;color:var(--ink)}
        input:focus{border-color:var(--focus)}
        button,.button{font:inherit;min-height:44px;border-radius:10px;padding:.5rem 1.1rem;cursor:pointer;\
        display:inline-flex;align-items:center;justify-content:center;text-decoration:none}
        .primary{background:var(--ink);color:var(--paper);border:0;font-weight:600;width:100%}
        .primary:hover{background:#2d3448}
        .reveal{background:var(--paper);border:1.5px solid var(--line);color:var(--ink);min-width:4.5rem}
        .reveal[hidden]{display:none}
        .alert{background:var(--bad-bg);color:var(--bad);border-radius:10px;padding:.6rem .8rem;margin-bottom:1rem}
        .actions{margin-top:1.25rem}
        .actions .button{background:var(--ink);color:var(--paper);font-weight:600;width:100%}
        .fine{color:var(--muted);font-size:.85rem;margin:1rem 0 0}
        .foot{text-align:center;color:var(--muted);font-size:.85rem;padding:1rem;border-top:1px solid var(--line)}
        .foot p{margin:0}
        ul.links{padding-left:1.2rem;margin:0 0 .9rem}
        ul.links li{margin-bottom:.35rem}

        """

    /// `/auth/action.js`: the show-password toggle (the page works without it).
    static let script = """
        for (const button of document.querySelectorAll('button.reveal')) {
          const input = document.getElementById(button.getAttribute('aria-controls'));
          if (!input) continue;
          button.hidden = false;
          button.addEventListener('click', () => {
            const shown = input.type === 'password';
            input.type = shown ? 'text' : 'password';
            button.setAttribute('aria-pressed', String(shown));
            button.textContent = shown ? button.dataset.hide : button.dataset.show;
            input.focus();
          });
        }
        for (const form of document.querySelectorAll('form')) {
          form.addEventListener('submit', () => {
            for (const input of form.querySelectorAll('input[type=text][autocomplete=new-password]')) {
              input.type = 'password';
            }
            const submit = form.querySelector('button[type=submit]');
            if (submit) submit.disabled = true;
          });
        }

        """

    /// `/auth/favicon.svg` (and `/favicon.ico` when nothing is hosted at `/`): Kura's mark.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" \
        fill="#1d2230"/><path d="M14 46V18h8v11l10-11h10L30 31l13 15H32l-10-12v12z" fill="#f4f1ea"/><circle \
        cx="48" cy="46" r="5" fill="#c2452d"/></svg>

        """
}
