/** The Slack Web API stand-in lives in lab/ (the lab's live runs post to it too); tests import it from here. */
export * from '../../../lab/slack-stand-in.js'
