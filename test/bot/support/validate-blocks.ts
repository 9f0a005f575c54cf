/** The Block Kit check lives in lab/ beside the Slack stand-in that runs it; tests import it from here. */
export * from '../../../lab/slack-validate-blocks.js'
