import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

// The Slack app manifest a team pastes must grant exactly what the bot's code uses: every Web API
// method it calls needs its scope, every listener it registers needs its feature, and nothing more.
const SCOPE_OF_METHOD: Record<string, string | string[]> = {
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'files.info': 'files:read',
  // Reading a thread takes the history scope of every kind of conversation it may be in.
  'conversations.history': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  'conversations.replies': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  'users.info': 'users:read',
}

// Events the bot listens to, and the scope each needs to be delivered.
const SCOPE_OF_EVENT: Record<string, string> = {
  app_mention: 'app_mentions:read',
}

function events(code: string): string[] {
  return [...code.matchAll(/app\.event\(\s*'([^']+)'/g)].map((m) => m[1])
}

async function botSources(dir = 'bot'): Promise<string[]> {
  const out: string[] = []
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) out.push(...(await botSources(p)))
    else if (e.name.endsWith('.ts')) out.push(await readFile(p, 'utf8'))
  }
  return out
}

describe('deploy/slack-app-manifest.yaml', () => {
  it('grants the scope of every Web API method the bot calls, and no other', async () => {
    const manifest = parse(await readFile('deploy/slack-app-manifest.yaml', 'utf8'))
    const code = (await botSources()).join('\n')
    const methods = new Set<string>()
    for (const m of code.matchAll(/['"`]((?:chat|files|conversations|users|reactions|views)\.[A-Za-z]+)['"`]/g)) methods.add(m[1])
    for (const m of code.matchAll(/client\.(chat|files|conversations|users|reactions|views)\.([A-Za-z]+)\(/g)) methods.add(`${m[1]}.${m[2]}`)
    expect(methods.size).toBeGreaterThan(0)
    const needed = new Set(['commands'])
    for (const m of methods) {
      expect(SCOPE_OF_METHOD[m], `no scope known for ${m}: add it to the table and the manifest`).toBeDefined()
      for (const scope of [SCOPE_OF_METHOD[m]].flat()) needed.add(scope)
    }
    for (const e of events(code)) {
      expect(SCOPE_OF_EVENT[e], `no scope known for event ${e}: add it to the table and the manifest`).toBeDefined()
      needed.add(SCOPE_OF_EVENT[e])
    }
    expect(new Set(manifest.oauth_config.scopes.bot)).toEqual(needed)
  })

  it('declares the slash command and interactivity the app registers, on Bolt’s endpoint', async () => {
    const manifest = parse(await readFile('deploy/slack-app-manifest.yaml', 'utf8'))
    const code = (await botSources()).join('\n')
    const commands = [...code.matchAll(/app\.command\(\s*'([^']+)'/g)].map((m) => m[1])
    expect(commands).toEqual(['/kafka'])
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual(commands)
    expect(/app\.action\(/.test(code)).toBe(true)
    expect(manifest.settings.interactivity.is_enabled).toBe(true)
    for (const url of [manifest.features.slash_commands[0].url, manifest.settings.interactivity.request_url]) expect(url).toMatch(/^https:\/\/.+\/slack\/events$/)
    expect(manifest.features.bot_user.display_name).toBeTruthy()
  })

  it('subscribes to exactly the events the app listens to, on Bolt’s endpoint', async () => {
    const manifest = parse(await readFile('deploy/slack-app-manifest.yaml', 'utf8'))
    const listened = events((await botSources()).join('\n'))
    expect(listened).toContain('app_mention')
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([...new Set(listened)].sort())
    expect(manifest.settings.event_subscriptions.request_url).toMatch(/^https:\/\/.+\/slack\/events$/)
  })
})
