/**
 * `ledgerhook/webhooks`: everything @ledgerhook/webhooks and its Node adapter export, for users of
 * the ledgerhook package; a service that only receives webhooks installs @ledgerhook/webhooks alone.
 */
export * from '@ledgerhook/webhooks';
export * from '@ledgerhook/webhooks/node';
