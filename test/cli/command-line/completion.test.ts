import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { completionScript } from '../../../cli/command-line/completion.js'
import { kafkaWhy } from '../../support/kafka-why-cli.js'

// The completion scripts as the shells load them: bash's function asked the way bash asks it
// (COMP_WORDS / COMP_CWORD), zsh's checked by zsh itself and registered through compinit.

const run = promisify(execFile)
const scratch = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-completion-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const bashFile = path.join(scratch, 'kafka-why.bash')
writeFileSync(bashFile, completionScript('bash'))

/** What bash's completion function offers for the words typed so far (the last one being completed). */
async function complete(words: string[], cwd = scratch): Promise<string[]> {
  const array = words.map((w) => `'${w}'`).join(' ')
  const script = `source '${bashFile}'; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _kafka_why; printf '%s\\n' "\${COMPREPLY[@]}"`
  const r = await run('bash', ['--norc', '-c', script], { cwd })
  return r.stdout.split('\n').filter(Boolean)
}

describe('cli/command-line/completion', () => {
  it('prints both scripts through `kafka-why completion`', async () => {
    const bash = await kafkaWhy(['completion', 'bash'])
    expect(bash.code).toBe(0)
    expect(bash.stdout).toBe(completionScript('bash'))
    const zsh = await kafkaWhy(['completion', 'zsh'])
    expect(zsh.stdout.startsWith('#compdef kafka-why\n')).toBe(true)
  }, 60_000)

  it('writes a bash script bash accepts', async () => {
    await expect(run('bash', ['-n', bashFile])).resolves.toBeDefined()
  })

  it.each([
    { words: ['kafka-why', 'wh'], offers: ['why'] },
    { words: ['kafka-why', 'why', '--si'], offers: ['--since'] },
    { words: ['kafka-why', 'lint', '--format', 's'], offers: ['sarif'] },
    { words: ['kafka-why', 'lab', 'cl'], offers: ['cluster'] },
    { words: ['kafka-why', 'lab', 'cluster', '--se'], offers: ['--session-timeout-ms'] },
    { words: ['kafka-why', 'completion', ''], offers: ['bash', 'zsh'] },
    { words: ['kafka-why', 'console', '--no-'], offers: ['--no-replay'] },
    { words: ['kafka-why', 'why', '--since', ''], offers: [] },
  ])('bash: $words → $offers', async ({ words, offers }) => {
    expect(await complete(words)).toEqual(offers)
  })

  it('bash: completes file names where an option or argument takes a path', async () => {
    const dir = mkdtempSync(path.join(scratch, 'files-'))
    writeFileSync(path.join(dir, 'jvm.rules'), '')
    writeFileSync(path.join(dir, 'jvm.yaml'), '')
    expect(await complete(['kafka-why', 'why', '--rules', 'jvm.r'], dir)).toEqual(['jvm.rules'])
    expect((await complete(['kafka-why', 'lint', 'jvm'], dir)).sort()).toEqual(['jvm.rules', 'jvm.yaml'])
  })

  it('writes a zsh script zsh accepts and compinit registers for kafka-why', async () => {
    const zshFile = path.join(scratch, '_kafka-why')
    writeFileSync(zshFile, completionScript('zsh'))
    await expect(run('zsh', ['-n', zshFile])).resolves.toBeDefined()
    const r = await run('zsh', ['-f', '-c', `autoload -U compinit; compinit -u -d '${scratch}/zcompdump'; source '${zshFile}'; print -r -- "\${_comps[kafka-why]}"; whence -w _kafka-why_lab_cluster`])
    expect(r.stdout.split('\n')).toEqual(['_kafka-why', '_kafka-why_lab_cluster: function', ''])
  })
})
