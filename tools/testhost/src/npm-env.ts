// Environment for the npm runs that fill the image, free of the calling npm script's settings.
export function cleanNpmEnv(extraPathFirst?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // `npm run testhost` exports npm_config_* and friends, which would steer the nested npm
    // (workspace, prefix, user agent) towards the repo instead of the image.
    if (/^npm_/i.test(k) || k === 'INIT_CWD' || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  if (extraPathFirst) env['PATH'] = `${extraPathFirst}:${env['PATH'] ?? '/usr/bin:/bin'}`;
  return env;
}
