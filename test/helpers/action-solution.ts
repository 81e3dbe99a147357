import { queueSolution } from './queue.js';

/**
 * A solution written as the platform's samples write theirs, over the customers service: global
 * actions wrapped as `action:` with parameters, a sync-entities refresh, lists, execute-entities,
 * a form, a confirm, queue actions by id, follow-ups written as expressions, and one file in the
 * older componentId form.
 */
export function actionSolution(url: string): Record<string, string> {
  return {
    ...queueSolution(url),
    'functions/rest-tag-customer.platform': `provider: DATA_PROVIDER_REST
method: POST
url: ${url}/customers
parameters:
  tags:
    location: body
    type: array
    required: true
`,
    'actions/refresh-customers.platform': `action:
  type: action.sync-entities
  options:
    provider: DATA_PROVIDER_REST
    entities:
      - entity: customers
        function: rest-get-customers
      - regions
`,
    'actions/rename-customer.platform': `action:
  type: action.execute-entity
  options:
    title: Rename
    provider: DATA_PROVIDER_REST
    entity: customers
    method: update
    function: rest-update-customer
    queueOperation: "=$isTempId(@ctx.action.parameters.id) ? 'replace' : 'add'"
    data:
      id: =@ctx.action.parameters.id
      name: =@ctx.action.parameters.name
    parameters:
      id: =@ctx.record.id
      name: =@ctx.record.name
    onSuccess:
      title: Customer renamed
      description: The new name is saved
parameters:
  id:
    type: string
    required: true
  name:
    type: string
    required: true
`,
    'actions/shout-all.platform': `action:
  type: action.execute-entities
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: update
    function: rest-update-customer
    data: =@ctx.jig.inputs.customers
    functionParameters:
      id: =@ctx.current.item.id
      name: =$uppercase(@ctx.current.item.name)
`,
    'actions/full-refresh.platform': `action:
  type: action.action-list
  options:
    isSequential: true
    actions:
      - type: action.execute-action
        options:
          action: refresh-customers
      - type: action.execute-action
        when: =$exists(@ctx.jig.inputs.rename)
        options:
          action: rename-customer
          parameters:
            id: c-1
            name: =@ctx.jig.inputs.rename
      - type: action.go-to
        options:
          linkTo: list-customers
`,
    'actions/strict-list.platform': `action:
  type: action.action-list
  options:
    isSequential: true
    actions:
      - type: action.execute-action
        options:
          action: rename-customer
          parameters:
            id: nobody
            name: x
      - type: action.execute-action
        options:
          action: refresh-customers
`,
    'actions/best-effort.platform': `action:
  type: action.action-list
  options:
    actions:
      - type: action.execute-action
        options:
          action: rename-customer
          parameters:
            id: nobody
            name: x
      - type: action.execute-action
        options:
          action: refresh-customers
`,
    'actions/draft-note.platform': `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_LOCAL
    entity: notes
    method: create
    function: rest-create-customer
    data:
      text: =@ctx.components.note.state.value
`,
    'actions/add-customer.platform': `action:
  type: action.submit-form
  options:
    formId: new-customer
    title: Add customer
    provider: DATA_PROVIDER_REST
    entity: customers
    method: create
    function: rest-create-customer
    goBack: previous
    onSuccess:
      - title: Customer added
      - refresh-customers
`,
    'actions/remove-customer.platform': `action:
  type: action.confirm
  options:
    title: Remove customer
    isConfirmedAutomatically: false
    modal:
      title: ="Remove " & @ctx.jig.inputs.customer & "?"
      description: ="It goes from the service too"
      confirm: Remove
      cancel: Cancel
    onConfirmed:
      type: action.execute-entity
      options:
        provider: DATA_PROVIDER_REST
        entity: customers
        method: delete
        function: rest-delete-customer
        data:
          id: =@ctx.jig.inputs.customer
        parameters:
          id: =@ctx.jig.inputs.customer
  style:
    isDanger: true
`,
    'actions/discard-changes.platform': `type: action.clear-queue
options:
  title: Discard changes
  id: =@ctx.current.item.id
`,
    'actions/retry-command.platform': `type: action.retry-queue-command
options:
  id: =@ctx.current.item.id
`,
    'actions/tag-customer.platform': `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: functionCall
    function: rest-tag-customer
    parameters:
      tags: =@ctx.action.parameters.tag
parameters:
  tag:
    type: string
`,
    'actions/save-or-note.platform': `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: update
    function: rest-update-customer
    data:
      id: =@ctx.current.item.id
      name: =@ctx.components.name.state.value
    parameters:
      id: =@ctx.record.id
      name: =@ctx.record.name
    onSuccess:
      title: Saved
    onError:
      - title: Not saved
      - type: action.execute-entity
        options:
          provider: DATA_PROVIDER_LOCAL
          entity: notes
          method: create
          data:
            text: =@ctx.current.item.id & ' was not saved'
`,
    'actions/add-and-refresh.platform': `action:
  type: action.execute-entity
  options:
    provider: DATA_PROVIDER_REST
    entity: customers
    method: create
    function: rest-create-customer
    data:
      name: =@ctx.action.parameters.name
    parameters:
      name: =@ctx.record.name
    onSuccess:
      - type: action.execute-action
        options:
          action: refresh-customers
      - title: ="Added " & @ctx.action.parameters.name
        description: ="Region " & $uppercase(@ctx.jig.inputs.region)
      - type: action.go-to
        options:
          linkTo: ="customer-" & $lowercase(@ctx.action.parameters.name)
parameters:
  name:
    type: string
    required: true
`,
    'actions/older-rename.platform': `componentId: '@jigx/jd-execute-entity'
options:
  provider: DATA_PROVIDER_LOCAL
  entity: customers
  method: update
  data:
    id: =@ctx.current.item.id
    name: =@ctx.components.name.state.value
`,
  };
}
