"""The scheduler engine as a real Kubernetes scheduler (``runai-scheduler``).

``python -m simulators scheduler --kubeconfig PATH`` (or ``python manage.py runscheduler``)
watches pods whose ``schedulerName`` is ``runai-scheduler`` and whose ``runai/queue`` label names
their project, builds the engine's model from the API (``model``), runs cycles, binds through
``pods/binding``, evicts through ``pods/eviction`` and records the engine's events; one replica
acts at a time (``lease``). Nothing about scheduling is decided here: the engine decides.
"""
