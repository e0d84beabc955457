// Every sentence the to-do app shows, in English and Japanese. `t(key, values)` fills `{name}` placeholders.

export const STRINGS = {
  en: {
    appName: 'To-do',
    skip: 'Skip to the content',
    loading: 'Loading…',
    footer: 'Your list is kept by Kura and works offline.',
    switchLanguage: '日本語',
    switchLanguageLabel: 'Switch to Japanese',
    signOut: 'Sign out',
    signedInAs: 'Signed in as {email}',
    signInTitle: 'Sign in to your to-do list',
    signInLead: 'Your list follows you: every tab, phone and the kura-todo command show the same items, live.',
    signInTab: 'Sign in',
    signUpTab: 'Sign up',
    signUpTitle: 'Create your to-do account',
    email: 'Email',
    password: 'Password',
    passwordRule: 'At least 6 characters.',
    showPassword: 'Show',
    hidePassword: 'Hide',
    showPasswordLabel: 'Show the password',
    signInButton: 'Sign in',
    signUpButton: 'Create my account',
    working: 'One moment…',
    forgot: 'Forgot your password?',
    resetTitle: 'Reset your password',
    resetLead: 'We mail you a link. It opens a page where you choose a new password, then leads you back here.',
    resetButton: 'Mail me a link',
    resetSent: 'If an account uses {email}, a mail with a link is on its way. The link works for one hour.',
    backToSignIn: 'Back to sign-in',
    listTitle: 'My to-dos',
    addLabel: 'New to-do',
    addPlaceholder: 'What needs doing?',
    addButton: 'Add',
    countNone: 'Nothing left to do.',
    countSome: '{open} to do, {done} done.',
    emptyTitle: 'Nothing to do yet',
    emptyLead: 'Add your first to-do above. It shows in every tab at once.',
    markDone: 'Mark “{title}” done',
    markOpen: 'Mark “{title}” not done',
    delete: 'Delete',
    deleteLabel: 'Delete “{title}”',
    swipeHint: 'Swipe an item to the left to delete it.',
    pending: 'Not sent yet',
    offline: 'You are offline. Changes are kept on this device and sent when the connection returns.',
    listError: 'Your list could not be loaded. Check the connection, then try again.',
    retry: 'Try again',
    added: 'Added “{title}”.',
    addedOffline: 'Added “{title}”. It is sent when you are back online.',
    deleted: 'Deleted “{title}”.',
    doneSaid: '“{title}” is done.',
    openSaid: '“{title}” is not done.',
    signedOut: 'You are signed out.',
    welcome: 'Welcome! Your account is ready.',
    blankTitle: 'Type what needs doing first.',
    tooLong: 'A to-do can be at most 500 characters long.',
    errEmailInUse: 'That email address already has an account. Sign in instead, or reset the password.',
    errInvalidEmail: 'That does not look like an email address. Check it for typos.',
    errWeakPassword: 'That password is too short. Use at least 6 characters.',
    errCredentials: 'The email or the password is wrong. Try again, or reset the password.',
    errTooMany: 'Too many attempts. Wait a few minutes, then try again.',
    errNetwork: 'The server cannot be reached. Check the connection and try again.',
    errDisabled: 'This account is disabled. Ask the app’s operator for help.',
    errDenied: 'The server refused this change. Sign in again and retry.',
    errUnknown: 'Something went wrong. Try again in a moment.',
    errWriteRefused: 'A change made offline was refused by the server and undone.',
  },
  ja: {
    appName: 'やることリスト',
    skip: '本文へ移動',
    loading: '読み込んでいます…',
    footer: 'リストは Kura に保存され、オフラインでも使えます。',
    switchLanguage: 'English',
    switchLanguageLabel: '英語に切り替える',
    signOut: 'ログアウト',
    signedInAs: '{email} でログイン中',
    signInTitle: 'やることリストにログイン',
    signInLead: 'どのタブでも、スマートフォンでも、kura-todo コマンドでも、同じリストがすぐに反映されます。',
    signInTab: 'ログイン',
    signUpTab: '新規登録',
    signUpTitle: 'やることリストのアカウントを作成',
    email: 'メールアドレス',
    password: 'パスワード',
    passwordRule: '6文字以上にしてください。',
    showPassword: '表示',
    hidePassword: '隠す',
    showPasswordLabel: 'パスワードを表示',
    signInButton: 'ログイン',
    signUpButton: 'アカウントを作成',
    working: '処理しています…',
    forgot: 'パスワードを忘れた場合',
    resetTitle: 'パスワードの再設定',
    resetLead: 'メールでリンクをお送りします。リンク先で新しいパスワードを決めると、このアプリに戻れます。',
    resetButton: 'リンクを送る',
    resetSent: '{email} のアカウントがあれば、リンク付きのメールを送りました。リンクは1時間有効です。',
    backToSignIn: 'ログインに戻る',
    listTitle: 'やること',
    addLabel: '新しいやること',
    addPlaceholder: '何をしますか？',
    addButton: '追加',
    countNone: 'やることはすべて終わりました。',
    countSome: '残り {open} 件、完了 {done} 件です。',
    emptyTitle: 'まだ何もありません',
    emptyLead: '上の欄から最初のやることを追加してください。すべてのタブにすぐ表示されます。',
    markDone: '「{title}」を完了にする',
    markOpen: '「{title}」を未完了に戻す',
    delete: '削除',
    deleteLabel: '「{title}」を削除',
    swipeHint: '項目を左にスワイプすると削除できます。',
    pending: '未送信',
    offline: 'オフラインです。変更はこの端末に保存され、接続が戻ると送信されます。',
    listError: 'リストを読み込めませんでした。接続を確かめてから、もう一度お試しください。',
    retry: 'もう一度読み込む',
    added: '「{title}」を追加しました。',
    addedOffline: '「{title}」を追加しました。オンラインに戻ると送信されます。',
    deleted: '「{title}」を削除しました。',
    doneSaid: '「{title}」を完了にしました。',
    openSaid: '「{title}」を未完了に戻しました。',
    signedOut: 'ログアウトしました。',
    welcome: 'ようこそ。アカウントを作成しました。',
    blankTitle: 'やることを入力してください。',
    tooLong: 'やることは500文字までです。',
    errEmailInUse: 'このメールアドレスはすでに登録されています。ログインするか、パスワードを再設定してください。',
    errInvalidEmail: 'メールアドレスの形式が正しくありません。入力を確かめてください。',
    errWeakPassword: 'パスワードが短すぎます。6文字以上にしてください。',
    errCredentials: 'メールアドレスかパスワードが違います。もう一度入力するか、パスワードを再設定してください。',
    errTooMany: '試行回数が多すぎます。数分待ってから、もう一度お試しください。',
    errNetwork: 'サーバーに接続できません。接続を確かめて、もう一度お試しください。',
    errDisabled: 'このアカウントは無効になっています。運営者にお問い合わせください。',
    errDenied: 'サーバーがこの変更を受け付けませんでした。ログインし直してお試しください。',
    errUnknown: '問題が起きました。少し待ってから、もう一度お試しください。',
    errWriteRefused: 'オフラインで行った変更がサーバーに拒否されたため、元に戻しました。',
  },
};

/** The saved choice, else the first of the browser's languages that the app speaks, else English. */
export function initialLanguage(storage, languages) {
  const saved = storage && storage.getItem('todo.lang');
  if (saved === 'ja' || saved === 'en') return saved;
  for (const language of languages || []) {
    const base = String(language).toLowerCase().split('-')[0];
    if (base === 'ja' || base === 'en') return base;
  }
  return 'en';
}

/** `t(key, values)` in `lang`, falling back to English. */
export function translator(lang) {
  const table = STRINGS[lang] || STRINGS.en;
  return (key, values = {}) => String(table[key] ?? STRINGS.en[key] ?? key)
    .replace(/\{(\w+)\}/g, (_, name) => (name in values ? String(values[name]) : `{${name}}`));
}

/** The sentence for an error kura.js reports (Firebase's codes). */
export function errorKey(error) {
  switch (error && error.code) {
    case 'auth/email-already-in-use': return 'errEmailInUse';
    case 'auth/invalid-email': return 'errInvalidEmail';
    case 'auth/weak-password': case 'auth/missing-password': return 'errWeakPassword';
    case 'auth/invalid-credential': case 'auth/user-not-found': case 'auth/wrong-password': return 'errCredentials';
    case 'auth/too-many-requests': case 'resource-exhausted': return 'errTooMany';
    case 'auth/user-disabled': return 'errDisabled';
    case 'auth/network-request-failed': case 'unavailable': case 'deadline-exceeded': return 'errNetwork';
    case 'permission-denied': return 'errDenied';
    default: return 'errUnknown';
  }
}
