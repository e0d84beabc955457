// The landing page's two languages: one table, chosen from the browser's language or the saved switch.
const strings = {
  en: {
    title: 'Kura',
    tagline: 'A self-hosted backend for app developers',
    appsHeading: 'The seed apps',
    appsLead: "Apps from the articles Kura grew from, rebuilt on Kura: accounts, documents, rules and live updates, served by this server.",
    quizName: 'Guess the 7th place',
    quizAbout: 'Ranking quizzes from public statistics: pick the 7th place, see the whole ranking, scores and a leaderboard. Works offline.',
    calcName: 'Calculator',
    calcAbout: 'Exact decimal arithmetic with precedence, parentheses and Ans; your history follows you between devices.',
    placesName: 'Where am I',
    placesAbout: "Your position as an address and a direction, nearest-place search on Kura's own queries, and your saved places.",
    notesName: 'Notebooks',
    notesAbout: 'Words and explanations in notebooks, live in every tab, and one search over them all with notebook tokens. Sign-up with a verified address.',
    todoName: 'To-do',
    todoAbout: 'A to-do list that updates live in every tab and in the kura-todo command, and works offline. Swipe to delete on a phone.',
    devHeading: 'Trying it out',
    mailNote: 'In development (<code>make run</code>, <code>kura serve --dev</code>) no mail leaves the machine: verification and password-reset mails are printed whole in the terminal that runs Kura. Open the link from there.',
    outboxNote: 'The held mails are also listed by <code>GET /api/admin/outbox</code> with the admin key (<code>kura_data/admin.key</code>).',
    dataNote: 'The quizzes and the places are loaded once, from a second terminal: <code>make apps-data</code>.',
    docsNote: 'How each app is built, and how to host your own app instead: <code>docs/apps.md</code> and <code>README.md</code> in the repository.',
    footer: 'Served by Kura.',
    health: 'Server health',
    pageTitle: 'Kura — the seed apps',
  },
  ja: {
    title: 'Kura',
    tagline: 'アプリ開発者のためのセルフホスト型バックエンド',
    appsHeading: 'シードアプリ',
    appsLead: 'Kura のもとになった記事のアプリを Kura の上に作り直しました。アカウント、ドキュメント、ルール、リアルタイム更新を、このサーバーが配信しています。',
    quizName: '7位を当てろ！',
    quizAbout: '公的な統計から作ったランキングクイズ。7位を選んで、1位から10位までの順位を確認。スコアとランキング表つき。オフラインでも遊べます。',
    calcName: '電卓',
    calcAbout: '優先順位・かっこ・Ans に対応した正確な10進計算。計算履歴は端末をまたいで引き継がれます。',
    placesName: 'ここはどこ',
    placesAbout: '現在地を住所と方角で表示。Kura のクエリだけで最寄りの地名を探し、お気に入りの場所を保存できます。',
    notesName: '単語帳',
    notesAbout: '単語と説明を単語帳にまとめ、開いているどのタブにもすぐ反映。すべての単語帳を、単語帳名のトークンで絞り込みながら検索できます。メール確認つきの登録。',
    todoName: 'やることリスト',
    todoAbout: 'すべてのタブと kura-todo コマンドにすぐ反映されるやることリスト。オフラインでも使えます。スマートフォンではスワイプで削除。',
    devHeading: '試すときは',
    mailNote: '開発モード（<code>make run</code>、<code>kura serve --dev</code>）ではメールは外に送られません。確認メールやパスワード再設定メールは、Kura を動かしている端末にそのまま表示されます。リンクはそこから開いてください。',
    outboxNote: '保留中のメールは、管理キー（<code>kura_data/admin.key</code>）を付けた <code>GET /api/admin/outbox</code> でも一覧できます。',
    dataNote: 'クイズと地名のデータは、別の端末で一度だけ <code>make apps-data</code> を実行して読み込みます。',
    docsNote: '各アプリの作りと、自分のアプリを配信する方法は、リポジトリの <code>docs/apps.md</code> と <code>README.md</code> にあります。',
    footer: 'Kura が配信しています。',
    health: 'サーバーの状態',
    pageTitle: 'Kura — シードアプリ',
  },
};

function chosenLanguage() {
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked === 'ja' || asked === 'en') return asked;
  const saved = localStorage.getItem('kura.landing.lang');
  if (saved === 'ja' || saved === 'en') return saved;
  return (navigator.languages ?? [navigator.language]).some((l) => l?.toLowerCase().startsWith('ja')) ? 'ja' : 'en';
}

function apply(lang) {
  const table = strings[lang];
  document.documentElement.lang = lang;
  document.title = table.pageTitle;
  for (const element of document.querySelectorAll('[data-text]')) element.textContent = table[element.dataset.text];
  for (const element of document.querySelectorAll('[data-html]')) element.innerHTML = table[element.dataset.html];
  for (const button of document.querySelectorAll('[data-lang]')) {
    button.setAttribute('aria-pressed', String(button.dataset.lang === lang));
  }
}

for (const button of document.querySelectorAll('[data-lang]')) {
  button.addEventListener('click', () => {
    localStorage.setItem('kura.landing.lang', button.dataset.lang);
    apply(button.dataset.lang);
  });
}
apply(chosenLanguage());
