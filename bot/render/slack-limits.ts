/**
 * Slack's documented Block Kit limits, in one place so the renderer and the stand-in API server used
 * in tests agree on them. https://api.slack.com/reference/block-kit/blocks
 */
export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextText: 3000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  selectOptions: 100,
  optionText: 75,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  /** chat.postMessage truncates `text` beyond this. */
  messageText: 40_000,
} as const
